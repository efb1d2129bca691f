"""Every page on a phone-sized screen (the seed apps were phone apps): nothing scrolls sideways,
and what a finger must hit is big enough to hit (24 CSS pixels at least, WCAG 2.2's target size;
the page aims at 40). Each page is photographed at that size."""

import pytest
from playwright.sync_api import expect

from conftest import screenshot

PAGES = [("chat", "Your question"), ("documents", None), ("images", "What to draw"), ("glasses", None), ("logs", "Operation"), ("memory", "A fact about you"), ("settings", None)]

# A checkbox is hit through its label too; a link inside a sentence is exempt (WCAG 2.5.8).
SMALL_TARGETS = """(selector) => [...document.querySelectorAll(selector)]
    .filter((element) => element.offsetParent !== null && !element.closest('.body, p, small'))
    .map((element) => ({ element, box: (['checkbox', 'radio'].includes(element.type) && element.labels?.length
        ? element.labels[0] : element).getBoundingClientRect() }))
    .filter(({ box }) => box.width > 0 && (box.height < 24 || box.width < 24))
    .map(({ element, box }) => `${element.tagName.toLowerCase()} "${(element.innerText || element.getAttribute('aria-label') || element.id || '')
        .trim().slice(0, 40)}" ${Math.round(box.width)}×${Math.round(box.height)}`)"""


@pytest.fixture()
def phone(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    yield context
    context.close()
    assert not errors, f"script errors in the page: {errors}"


@pytest.mark.parametrize("name,label", PAGES, ids=[name for name, _ in PAGES])
def test_every_page_fits_a_phone(stub_server, phone, name, label):
    page = phone.new_page()
    page.goto(f"{stub_server.url}/#/{name}")
    expect(page.locator("main h1").first).to_be_visible()
    if label:
        expect(page.get_by_label(label).first).to_be_visible()
    page.wait_for_load_state("networkidle")
    screenshot(page, f"{name}-phone")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{name} scrolls sideways on a phone ({width} px)"
    small = page.evaluate(SMALL_TARGETS, "button, a[href], select, input:not([type=hidden]), textarea, summary")
    assert small == [], f"{name}: targets smaller than 24 px: {small}"


def test_the_chat_on_a_phone_is_laid_out_like_a_messaging_app(stub_server, model_stub, phone):
    model_stub.answer, model_stub.delay = "Paris is the capital of France.", 0.0
    page = phone.new_page()
    page.goto(f"{stub_server.url}/#/chat")
    question = page.get_by_label("Your question")
    # Two questions, so the list has a conversation to open and the thread is long.
    for text in ("What is the capital of France?", "And of Italy?"):
        question.fill(text)
        question.press("Enter")
        expect(page.locator(".messages li").last.locator(".body")).to_have_text("Paris is the capital of France.", timeout=60_000)
    # The persona and the switches are behind one button.
    persona = page.get_by_label("Persona")
    expect(persona).to_be_hidden()
    options = page.get_by_role("button", name="Options")
    options.click()
    expect(options).to_have_attribute("aria-expanded", "true")
    expect(persona).to_be_visible()
    screenshot(page, "chat-phone-options")
    options.click()
    expect(persona).to_be_hidden()
    # The question box stays at the bottom of the screen however long the thread is.
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator("form.composer").bounding_box()
    assert box and box["y"] + box["height"] <= 844 + 1, box
    # The conversations are a drawer: closed, opened from the header, closed by choosing one.
    conversations = page.get_by_role("complementary", name="Conversations")
    expect(conversations).to_be_hidden()
    drawer = page.get_by_role("button", name="Conversations")
    drawer.click()
    expect(conversations).to_be_visible()
    expect(drawer).to_have_attribute("aria-expanded", "true")
    assert page.evaluate("document.activeElement.id") == "conversation-search"
    screenshot(page, "chat-phone-drawer")
    conversations.locator(".conversation-list a").first.click()
    expect(conversations).to_be_hidden()
    # Escape closes it too, and gives the focus back to the button that opened it.
    drawer.click()
    expect(conversations).to_be_visible()
    page.keyboard.press("Escape")
    expect(conversations).to_be_hidden()
    assert page.evaluate("document.activeElement.getAttribute('aria-controls')") == "conversations"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the chat scrolls sideways on a phone ({width} px)"
