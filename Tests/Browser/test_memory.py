"""The memory page in a browser: a fact written there is remembered and can be forgotten; a fact
Sibyl proposes from a conversation (read by `sibyl memory read` on the server's data directory)
waits under Proposed, links to its conversation and is accepted there; too long a fact keeps its
words and says why; an answer that used a remembered fact shows it among its sources. Every theme
is checked by axe and photographed, and the page fits a phone."""

import json
import re
import subprocess

import pytest
from playwright.sync_api import expect

from conftest import every_theme, fresh_server, screenshot, sibyl_binary

# What the stub model answers when `sibyl memory read` asks it about a conversation.
PROPOSAL = {"facts": [{"fact": "The user is vegetarian.", "quote": "I am vegetarian"}]}
QUESTION = "I am vegetarian and I cook for two. What is a quick dinner?"


@pytest.fixture(scope="module")
def memory_server(model_stub):
    """An open server answering with the stub model; it never reads conversations for facts by
    itself (the test asks for that with the command line, at the moment it chooses)."""
    with fresh_server({"OPENAI_BASE_URL": model_stub.url, "SIBYL_SERVE_AUTH": "none", "SIBYL_EMBEDDINGS_PROVIDER": "local",
                       "SIBYL_MAX_RETRIES": "0", "SIBYL_TITLES": "first-words", "SIBYL_MEMORY_PROPOSE": "off"}) as server:
        yield server


def facts(page, url: str) -> list[dict]:
    answer = page.request.get(url + "/api/v1/memory")
    assert answer.ok, answer.text()
    return answer.json()


def section(page, name: str):
    """The card whose heading starts with `name` (its count follows)."""
    return page.locator("main section").filter(has=page.get_by_role("heading", name=re.compile(f"^{re.escape(name)}\\s")))


def watch_console(page) -> list[str]:
    """The failed requests and console errors of a page, as they come."""
    problems: list[str] = []
    page.on("response", lambda response: problems.append(f"{response.status} {response.request.method} {response.url}") if response.status >= 400 else None)
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return problems


def test_a_written_fact_is_remembered_and_forgotten(memory_server, context):
    page = context.new_page()
    problems = watch_console(page)
    page.goto(memory_server.url + "/#/chat")
    page.get_by_role("navigation", name="Sibyl").get_by_role("link", name="Memory").click()
    expect(page.get_by_role("heading", name="Memory", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="Memory", exact=True)).to_have_attribute("aria-current", "page")
    expect(page.get_by_text("Facts about you that Sibyl may use in its answers.")).to_contain_text("forgetting a fact deletes it everywhere")
    proposed, remembered = section(page, "Proposed"), section(page, "Remembered")
    expect(proposed.get_by_text("Nothing proposed.")).to_be_visible()
    expect(remembered.get_by_text("Nothing remembered yet.")).to_be_visible()
    expect(remembered.get_by_role("heading", level=2)).to_have_text("Remembered 0 facts")

    page.get_by_label("A fact about you").fill("My sister Mia lives in Lisbon.")
    page.get_by_role("button", name="Remember", exact=True).click()
    fact = remembered.locator("li.memory-fact")
    expect(fact).to_have_count(1)
    expect(fact.locator(".memory-text")).to_have_text("My sister Mia lives in Lisbon.")
    expect(fact.locator(".memory-meta")).to_contain_text("written by you")
    expect(fact.locator("time")).to_have_attribute("datetime", re.compile(r"^\d{4}-\d\d-\d\dT"))
    expect(fact.get_by_role("button", name="Accept", exact=False)).to_have_count(0)
    expect(remembered.get_by_text("Nothing remembered yet.")).to_be_hidden()
    expect(remembered.get_by_role("heading", level=2)).to_have_text("Remembered 1 fact")
    expect(page.get_by_label("A fact about you")).to_have_value("")
    kept = facts(page, memory_server.url)
    assert [(f["text"], f["status"]) for f in kept] == [("My sister Mia lives in Lisbon.", "accepted")], kept
    assert "conversationId" not in kept[0] and kept[0]["acceptedAt"]

    # Forgotten: gone from the page, after a reload too, and from the API.
    page.get_by_role("button", name="Forget “My sister Mia lives in Lisbon.”").click()
    expect(fact).to_have_count(0)
    expect(remembered.get_by_text("Nothing remembered yet.")).to_be_visible()
    page.reload()
    expect(page.get_by_role("heading", name="Memory", level=1)).to_be_visible()
    expect(section(page, "Remembered").get_by_text("Nothing remembered yet.")).to_be_visible()
    expect(page.locator("li.memory-fact")).to_have_count(0)
    assert facts(page, memory_server.url) == []
    page.wait_for_load_state("networkidle")
    assert problems == [], problems


def test_how_sibyl_learns_is_set_on_the_memory_page(memory_server, context):
    page = context.new_page()
    problems = watch_console(page)
    page.goto(memory_server.url + "/#/memory")
    learning = page.locator("main section").filter(has=page.get_by_role("heading", name="How Sibyl learns"))
    propose = learning.get_by_label("Propose facts from my conversations once they go quiet")
    auto = learning.get_by_label("Use proposed facts at once, without asking me")
    quiet = learning.get_by_label("Minutes without a new message before a conversation is read")
    # This server has memory.propose off (from its environment) and the other two as shipped.
    expect(propose).not_to_be_checked()
    expect(auto).not_to_be_checked()
    expect(quiet).to_have_value("10")

    def setting(key):
        answer = page.request.get(memory_server.url + "/api/v1/settings/" + key)
        assert answer.ok, answer.text()
        return answer.json()["value"]

    auto.check()
    expect(page.get_by_text("Saved")).to_be_visible()
    quiet.fill("3")
    quiet.press("Enter")
    quiet.blur()
    page.wait_for_function("async () => (await (await fetch('/api/v1/settings/memory.quiet_minutes')).json()).value === '3'")
    assert setting("memory.auto_accept") == "on"
    page.reload()
    expect(learning.get_by_label("Use proposed facts at once, without asking me")).to_be_checked()
    expect(learning.get_by_label("Minutes without a new message before a conversation is read")).to_have_value("3")
    # Back as shipped, for the other tests of this server.
    for key in ("memory.auto_accept", "memory.quiet_minutes"):
        assert page.request.delete(memory_server.url + "/api/v1/settings/" + key).ok
    page.wait_for_load_state("networkidle")
    assert problems == [], problems


def test_too_long_a_fact_keeps_its_words_and_says_why(memory_server, context):
    page = context.new_page()
    page.goto(memory_server.url + "/#/memory")
    words = "a" * 501
    page.get_by_label("A fact about you").fill(words)
    page.get_by_role("button", name="Remember", exact=True).click()
    # The page shows the server's own reason (the API answers 400 with it).
    refused = page.request.post(memory_server.url + "/api/v1/memory", data={"text": words})
    assert refused.status == 400, refused.text()
    reason = refused.json()["error"]["message"]
    alert = page.get_by_role("alert").filter(has_text=reason)
    expect(alert).to_be_visible()
    expect(page.get_by_label("A fact about you")).to_have_value(words)
    expect(page.get_by_label("A fact about you")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("li.memory-fact")).to_have_count(0)
    # Nothing typed: said in the page, nothing sent.
    page.get_by_label("A fact about you").fill("   ")
    page.get_by_role("button", name="Remember", exact=True).click()
    expect(page.get_by_role("alert").filter(has_text="Write the fact first.")).to_be_visible()
    # Put right, it is remembered and the reason goes.
    page.get_by_label("A fact about you").fill("I run every morning.")
    page.get_by_role("button", name="Remember", exact=True).click()
    expect(section(page, "Remembered").locator("li.memory-fact .memory-text")).to_have_text("I run every morning.")
    expect(page.locator("#memory-error")).to_be_empty()
    expect(page.get_by_label("A fact about you")).not_to_have_attribute("aria-invalid", "true")
    page.get_by_role("button", name="Forget “I run every morning.”").click()
    expect(page.locator("li.memory-fact")).to_have_count(0)


def test_a_proposed_fact_links_to_its_conversation_is_accepted_and_cited(memory_server, model_stub, context):
    model_stub.answer, model_stub.delay = "A lentil curry takes twenty minutes.", 0.0
    page = context.new_page()
    problems = watch_console(page)
    page.goto(memory_server.url + "/#/chat")
    page.get_by_label("Your question").fill(QUESTION)
    page.get_by_label("Your question").press("Enter")
    expect(page.locator(".bubble.answer").last).to_have_attribute("data-status", "complete", timeout=60_000)
    expect(page).to_have_url(re.compile(r"#/chat/[0-9a-fA-F-]{36}$"))
    conversation = page.url.rsplit("/", 1)[1]

    # Sibyl reads the conversation for facts about the user (what `sibyl serve` does once it goes
    # quiet), here with the command line on the server's data directory and a model that finds one.
    model_stub.completion = json.dumps(PROPOSAL)
    asked = len(model_stub.requests)
    try:
        done = subprocess.run([sibyl_binary(), "memory", "read"], env=memory_server.env, capture_output=True, text=True, timeout=120)
    finally:
        model_stub.completion = "Stub title"
    assert done.returncode == 0, done.stderr
    assert "proposed" in done.stdout and "The user is vegetarian." in done.stdout, done.stdout
    assert any("I am vegetarian" in str(request.get("messages")) for request in model_stub.requests[asked:]), model_stub.requests[asked:]

    page.get_by_role("link", name="Memory", exact=True).click()
    proposed, remembered = section(page, "Proposed"), section(page, "Remembered")
    fact = proposed.locator("li.memory-fact")
    expect(fact).to_have_count(1)
    expect(fact.locator(".memory-text")).to_have_text("The user is vegetarian.")
    expect(fact.get_by_role("link", name="from a conversation")).to_have_attribute("href", f"#/chat/{conversation}")
    expect(proposed.get_by_role("heading", level=2)).to_have_text("Proposed 1 fact")
    expect(remembered.get_by_text("Nothing remembered yet.")).to_be_visible()
    page.get_by_label("A fact about you").fill("My sister Mia lives in Lisbon.")
    page.get_by_role("button", name="Remember", exact=True).click()
    expect(remembered.locator("li.memory-fact")).to_have_count(1)
    every_theme(page, "memory")

    # Accepted: it moves to Remembered, still from its conversation, and the focus stays in the list.
    page.get_by_role("button", name="Accept “The user is vegetarian.”").click()
    expect(proposed.locator("li.memory-fact")).to_have_count(0)
    expect(proposed.get_by_text("Nothing proposed.")).to_be_visible()
    accepted = remembered.locator("li.memory-fact").filter(has_text="The user is vegetarian.")
    expect(accepted.get_by_role("link", name="from a conversation")).to_be_visible()
    expect(accepted.get_by_role("button", name="Forget “The user is vegetarian.”")).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "memory-proposed-title"
    listed = {f["text"]: f for f in facts(page, memory_server.url)}
    assert listed["The user is vegetarian."]["status"] == "accepted" and listed["The user is vegetarian."]["conversationId"].lower() == conversation.lower()
    screenshot(page, "memory-accepted")

    # The source link opens the conversation in the chat.
    accepted.get_by_role("link", name="from a conversation").click()
    expect(page.locator(".bubble.own").first.locator(".body")).to_have_text(QUESTION)
    expect(page.get_by_role("link", name="Chat", exact=True)).to_have_attribute("aria-current", "page")

    # A question about the user is given the fact; the answer that uses it shows it among its
    # sources as a fact from the memory, not as a document's passage.
    model_stub.answer = "As a vegetarian, try a lentil curry [1]."
    page.get_by_role("link", name="New conversation").click()
    page.get_by_label("Your question").fill("What should I cook for my dinner tonight?")
    page.get_by_label("Your question").press("Enter")
    answer = page.locator(".bubble.answer").last
    expect(answer).to_have_attribute("data-status", "complete", timeout=120_000)
    sent = [request for request in model_stub.requests if request.get("stream")][-1]
    assert "The user is vegetarian." in str(sent["messages"]), "the accepted fact was given to the model"
    remembered_source = answer.locator(".citations li.memory")
    expect(remembered_source).to_have_count(1)
    expect(remembered_source.locator("summary .tool-label")).to_have_text("memory")
    expect(remembered_source.locator("summary")).to_contain_text("The user is vegetarian.")
    answer.locator(".body").get_by_role("button", name="Open source 1").click()
    expect(remembered_source.get_by_text("From your memory.")).to_be_visible()
    expect(remembered_source.get_by_role("link", name="See your memory")).to_have_attribute("href", "#/memory")
    screenshot(page, "chat-memory-citation")
    page.reload()
    expect(page.locator(".bubble.answer").last.locator(".citations li.memory summary")).to_contain_text("The user is vegetarian.")
    page.wait_for_load_state("networkidle")
    assert problems == [], problems

    # Forgotten everywhere: the page and the API no longer have it.
    page.goto(memory_server.url + "/#/memory")
    for text in ("The user is vegetarian.", "My sister Mia lives in Lisbon."):
        page.get_by_role("button", name=f"Forget “{text}”").click()
    expect(page.locator("li.memory-fact")).to_have_count(0)
    assert facts(page, memory_server.url) == []


def test_the_memory_page_in_korean_and_on_a_phone(memory_server, browser):
    from test_phone import SMALL_TARGETS
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    errors: list[str] = []
    phone.on("weberror", lambda error: errors.append(str(error.error)))
    try:
        page = phone.new_page()
        page.goto(memory_server.url + "/#/memory")
        page.get_by_label("A fact about you").fill("I am allergic to peanuts, and I keep an epinephrine pen in my bag.")
        page.get_by_role("button", name="Remember", exact=True).click()
        expect(page.locator("li.memory-fact")).to_have_count(1)
        page.wait_for_load_state("networkidle")
        screenshot(page, "memory-phone")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the memory page scrolls sideways on a phone ({width} px)"
        small = page.evaluate(SMALL_TARGETS, "button, a[href], select, input:not([type=hidden]), textarea, summary")
        assert small == [], f"targets smaller than 24 px: {small}"
        page.get_by_label("Language").select_option("ko")
        expect(page.get_by_role("heading", name="기억", level=1)).to_be_visible()
        expect(section(page, "기억된 사실").get_by_role("heading", level=2)).to_have_text("기억된 사실 1개")
        expect(page.get_by_role("button", name="기억하기")).to_be_visible()
        screenshot(page, "memory-phone-ko")
        page.get_by_role("button", name=re.compile("잊기$")).click()
        expect(page.get_by_text("아직 기억된 사실이 없습니다.")).to_be_visible()
        page.get_by_label("언어", exact=True).select_option("en")
        expect(page.locator("html")).to_have_attribute("lang", "en")
    finally:
        phone.close()
    assert not errors, f"script errors in the page: {errors}"
