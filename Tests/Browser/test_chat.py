"""The chat in a browser: answers stream into bubbles and survive a reload; Stop, Retry and a failed
upstream; Markdown, code and maths rendered, and model output that cannot run anything;
conversations renamed, searched and deleted."""


from playwright.sync_api import expect

from conftest import every_theme, screenshot


def ask(page, text: str):
    page.get_by_label("Your question").fill(text)
    page.get_by_label("Your question").press("Enter")


def last_answer(page):
    return page.locator(".bubble.answer").last


def test_an_answer_streams_in_and_survives_a_reload(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay = "The capital of France is **Paris**.", 0.05
    page = context.new_page()
    page.goto(stub_server.url + "/")
    expect(page.get_by_text("Hello. What would you like to know?")).to_be_visible()
    ask(page, "What is the capital of France?")
    expect(page.locator(".bubble.own").last.locator(".body")).to_have_text("What is the capital of France?")
    expect(page.locator(".bubble.own .status")).to_have_count(0)
    answer = last_answer(page)
    expect(answer.locator(".body")).to_have_text("The capital of France is Paris.")
    expect(answer.locator("strong")).to_have_text("Paris")
    expect(answer).to_have_attribute("data-status", "complete")
    expect(page.get_by_role("heading", level=1)).to_have_text("Stub title")
    expect(page.locator(".conversation-list a[aria-current=page]")).to_contain_text("Stub title")
    page.reload()
    expect(last_answer(page).locator(".body")).to_have_text("The capital of France is Paris.")
    expect(page.locator(".bubble.own")).to_have_count(1)
    every_theme(page, "chat")


def test_stop_keeps_what_was_written_and_retry_answers_again(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay = " ".join(f"word{i}" for i in range(200)), 0.1
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    ask(page, "Count slowly.")
    answer = last_answer(page)
    expect(answer.locator(".body")).to_contain_text("word3", timeout=30_000)
    page.get_by_role("button", name="Stop").click()
    expect(answer).to_have_attribute("data-status", "cancelled")
    expect(answer.locator(".status")).to_have_text("Stopped")
    assert "word199" not in answer.locator(".body").inner_text()
    model_stub.answer, model_stub.delay = "A fresh answer.", 0.0
    answer.get_by_role("button", name="Retry").click()
    expect(last_answer(page).locator(".body")).to_have_text("A fresh answer.")
    expect(page.locator(".bubble.answer")).to_have_count(1)
    expect(page.get_by_role("button", name="Send")).to_be_visible()


def test_a_failed_upstream_shows_the_error_and_retry_works(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay, model_stub.fail_next = "Back again.", 0.0, 1
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    ask(page, "Are you there?")
    answer = last_answer(page)
    expect(answer).to_have_attribute("data-status", "failed")
    expect(answer.locator(".status")).to_contain_text("Failed")
    expect(answer.locator(".status")).to_contain_text("stub model is down")
    screenshot(page, "chat-failed")
    answer.get_by_role("button", name="Retry").click()
    expect(last_answer(page).locator(".body")).to_have_text("Back again.")
    expect(last_answer(page)).to_have_attribute("data-status", "complete")


def test_a_question_asked_before_the_personas_arrive_gets_the_default_persona(stub_server, model_stub, context):
    # On a busy machine a question can be sent before the persona list has loaded (CI did): the
    # page then names no persona and the server's default applies. An empty list stands in for it.
    model_stub.answer, model_stub.delay = "Default persona here.", 0.0
    page = context.new_page()
    page.route("**/api/v1/personas", lambda route: route.fulfill(json=[]))
    page.goto(stub_server.url + "/#/chat")
    expect(page.get_by_label("Persona")).to_have_value("")
    ask(page, "Who answers?")
    expect(last_answer(page).locator(".body")).to_have_text("Default persona here.")
    expect(last_answer(page)).to_have_attribute("data-status", "complete")


def test_model_output_runs_nothing_and_code_and_maths_are_typeset(stub_server, model_stub, context):
    model_stub.delay = 0.0
    model_stub.answer = ('Look: <img src=x onerror="document.title=\'pwned\'"> <script>document.title=\'pwned\'</script> '
                         '[click](javascript:document.title=\'pwned\') and [docs](https://example.org).\n\n'
                         '```python\nprint("hi")\n```\n\n$$x^2 + 1$$')
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    ask(page, "Show me everything.")
    body = last_answer(page).locator(".body")
    expect(body.locator("pre code")).to_contain_text('print("hi")')
    assert page.title() != "pwned"
    assert body.locator("img").count() == 0, "raw HTML from a model never becomes an element"
    assert body.locator("script").count() == 0
    expect(body).to_contain_text("<img src=x onerror=")
    expect(body.get_by_role("link", name="docs")).to_have_attribute("href", "https://example.org")
    assert body.get_by_role("link", name="click").count() == 0, "javascript: URLs are not links"
    expect(body.locator("pre code.hljs, pre code[class*=language-]")).to_have_count(1)
    expect(body.locator(".katex")).to_have_count(1)
    page.wait_for_timeout(300)
    assert page.title() != "pwned"
    screenshot(page, "chat-markdown")


def test_conversations_are_renamed_searched_and_deleted(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay = "Noted.", 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    ask(page, "Remember the lighthouse.")
    expect(last_answer(page)).to_have_attribute("data-status", "complete")
    page.get_by_role("button", name="Rename").click()
    page.get_by_role("textbox", name="Title").fill("Lighthouse notes")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Lighthouse notes")
    page.get_by_label("Search conversations").fill("lighthouse")
    expect(page.locator(".conversation-list li")).to_have_count(1)
    expect(page.locator(".conversation-list")).to_contain_text("Lighthouse notes")
    page.get_by_label("Search conversations").fill("zebra-unicorn")
    expect(page.locator(".conversation-list")).to_contain_text("No conversation matches.")
    page.get_by_role("button", name="Delete").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Lighthouse notes")
    dialog.get_by_role("button", name="Delete").click()
    expect(page.get_by_text("Hello. What would you like to know?")).to_be_visible()
    # The page is drawn afresh for a new conversation, its search field empty: the words are typed
    # into that one, not into the one it replaces.
    expect(page.get_by_label("Search conversations")).to_have_value("")
    page.get_by_label("Search conversations").fill("lighthouse")
    expect(page.locator(".conversation-list")).to_contain_text("No conversation matches.")


def test_first_run_onboarding_and_an_attached_image(stub_server, model_stub, context):
    from model_stub import png
    model_stub.answer, model_stub.delay = "A blue square.", 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    expect(page.get_by_role("heading", name="Welcome to Sibyl")).to_be_visible()
    expect(page.get_by_role("link", name="Connect a provider")).to_have_attribute("href", "#/settings")
    page.get_by_role("button", name="Stay offline").click()
    expect(page.get_by_role("heading", name="Welcome to Sibyl")).to_have_count(0)
    page.reload()
    expect(page.get_by_label("Your question")).to_be_visible()
    expect(page.get_by_role("heading", name="Welcome to Sibyl")).to_have_count(0)

    page.locator("#attach-image").set_input_files(files=[{"name": "square.png", "mimeType": "image/png", "buffer": png()}])
    expect(page.get_by_text("Image attached: square.png")).to_be_visible()
    ask(page, "What is in this picture?")
    expect(last_answer(page).locator(".body")).to_have_text("A blue square.")
    expect(page.locator(".bubble.own").last.locator("img")).to_have_count(1)
    sent = [request for request in model_stub.requests if request.get("stream")][-1]
    assert "image_url" in str(sent["messages"][-1]), "the image went to the model with the question"
    page.reload()
    expect(page.locator(".bubble.own").last.locator("img")).to_have_count(1)


def test_the_answer_language_follows_the_setting(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay = "서울입니다.", 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    page.get_by_label("Answer in").select_option("Korean")
    ask(page, "What is the capital of South Korea?")
    expect(last_answer(page).locator(".body")).to_have_text("서울입니다.")
    sent = [request for request in model_stub.requests if request.get("stream")][-1]
    system = next(message["content"] for message in sent["messages"] if message["role"] == "system")
    assert "Always write your answer in Korean" in system
    page.reload()
    expect(page.get_by_label("Answer in")).to_have_value("Korean")
    page.get_by_label("Answer in").select_option("")


def test_a_conversation_keeps_the_chat_model_picked_for_it(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay = "Picked.", 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    picker = page.get_by_label("Model", exact=True)
    # The provider's models, with the one answers use when none is picked named as the default.
    expect(picker.locator("option").first).to_have_text("Default (stub-model)")
    expect(picker.locator("option[value='stub-model-large']")).to_have_count(1)
    picker.select_option("stub-model-large")
    question = page.get_by_label("Your question")
    question.fill("Which model are you?")
    question.press("Enter")
    expect(page.locator(".messages li").last.locator(".body")).to_have_text("Picked.", timeout=60_000)
    asked = [body for body in model_stub.requests if body.get("stream")][-1]
    assert asked["model"] == "stub-model-large", asked
    # Opened again, the conversation still has its model; a new one starts with the default.
    page.reload()
    expect(page.get_by_label("Model", exact=True)).to_have_value("stub-model-large")
    page.get_by_role("link", name="New conversation").click()
    expect(page.get_by_label("Model", exact=True)).to_have_value("")


def test_a_question_asked_in_another_tab_shows_at_once(stub_server, model_stub, context):
    # One live event stream per page (GET /api/v1/events): no reload, no polling.
    model_stub.answer, model_stub.delay = "Seen everywhere.", 0.0
    watcher = context.new_page()
    watcher.goto(stub_server.url + "/#/chat")
    expect(watcher.get_by_label("Your question")).to_be_visible()
    asker = context.new_page()
    asker.goto(stub_server.url + "/#/chat")
    question = asker.get_by_label("Your question")
    question.fill("Is this shown in the other tab?")
    question.press("Enter")
    expect(asker.locator(".messages li").last.locator(".body")).to_have_text("Seen everywhere.", timeout=60_000)
    conversation = asker.url.split("#/chat/")[1]
    # The watcher's list has it, and opened there, a next question asked by the other tab arrives with its answer.
    link = watcher.locator(f".conversation-list a[href='#/chat/{conversation}']")
    expect(link).to_be_visible(timeout=30_000)
    link.click()
    expect(watcher.locator(".messages li .body").first).to_have_text("Is this shown in the other tab?")
    question.fill("And this one?")
    question.press("Enter")
    expect(watcher.locator(".bubble.own .body").last).to_have_text("And this one?", timeout=30_000)
    expect(watcher.locator(".bubble.answer .body").last).to_have_text("Seen everywhere.", timeout=60_000)
    # Renamed in one tab, the other's header follows.
    asker.get_by_role("button", name="Rename").click()
    asker.get_by_label("Title", exact=True).fill("Shared thread")
    asker.get_by_role("button", name="Save").click()
    expect(watcher.get_by_role("heading", name="Shared thread", level=1)).to_be_visible(timeout=30_000)


def test_an_image_drawn_from_the_composer_is_kept_in_the_thread(stub_server, model_stub, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    question = page.get_by_label("Your question")
    question.fill("/draw a red fox in the snow")
    question.press("Enter")
    picture = page.locator(".bubble.answer img.attached-image")
    expect(picture).to_have_count(1, timeout=60_000)
    expect(page.locator(".bubble.own .body").last).to_have_text("a red fox in the snow")
    drawn = [body for body in model_stub.requests if "prompt" in body][-1]
    assert drawn["prompt"] == "a red fox in the snow", drawn
    assert picture.evaluate("image => image.complete && image.naturalWidth > 0")
    conversation = page.url.split("#/chat/")[1]
    # Kept: there after a reload, and the list can show only the conversations with drawn images.
    page.reload()
    expect(page.locator(".bubble.answer img.attached-image")).to_have_count(1)
    page.get_by_label("Show", exact=True).select_option("images")
    links = page.locator(".conversation-list a")
    expect(links).to_have_count(1)
    expect(links.first).to_have_attribute("href", f"#/chat/{conversation}")
    page.get_by_label("Show", exact=True).select_option("text")
    expect(page.locator(f".conversation-list a[href='#/chat/{conversation}']")).to_have_count(0)
