"""The other pages in a browser: settings (connect a provider and see what works, keys shown only
by their last characters, personas), the log (filters, export, following live), images (drawn,
kept, in the gallery) and the virtual Monocle mirrored in the page; every page checked by axe in
every theme and photographed."""

import re

from playwright.sync_api import expect

from conftest import every_theme

def test_settings_connect_a_provider_and_say_what_works(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay = "OK", 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/settings")
    expect(page.get_by_role("heading", name="Settings", level=1)).to_be_visible()
    expect(page.get_by_text("Sibyl works offline")).to_be_visible()
    page.get_by_label("API key").fill("sk-test-browser-0123456789WXYZ")
    page.get_by_label("Server address (base URL)").fill(model_stub.url)
    page.get_by_role("button", name="Save and check").click()
    chat_row = page.locator("table tbody tr").filter(has_text="chat").first
    expect(chat_row).to_have_attribute("data-state", "available", timeout=60_000)
    expect(chat_row).to_contain_text(model_stub.url)
    keys = page.locator("section").filter(has=page.get_by_role("heading", name="Keys")).locator("li")
    expect(keys.first).to_contain_text("WXYZ")
    assert "0123456789" not in page.content(), "a key is never shown whole"
    expect(page.locator("tr[data-component]").first).to_be_visible()
    page.get_by_label("Name").fill("pirate")
    page.get_by_label("Summary").fill("talks like a pirate")
    page.get_by_label("System prompt").fill("Answer like a pirate.")
    page.get_by_role("button", name="Save the persona").click()
    expect(page.get_by_role("button", name="Edit pirate")).to_be_visible()
    every_theme(page, "settings")
    page.get_by_role("button", name="Remove the key openai").click()
    expect(keys.first).to_contain_text("No keys")
    page.get_by_role("button", name="Remove pirate").click()
    expect(page.get_by_role("button", name="Edit pirate")).to_have_count(0)



def test_editing_a_persona_keeps_its_model_and_temperature(stub_server, context):
    # Saving replaces the whole persona: an edit in the page must send back what it does not change.
    page = context.new_page()
    api = stub_server.url + "/api/v1/personas/tutor"
    made = page.request.put(api, data={"systemPrompt": "Explain step by step.", "summary": "patient", "model": "tutor-model", "temperature": 0.3})
    assert made.ok, made.text()
    page.goto(stub_server.url + "/#/settings")
    page.get_by_role("button", name="Edit tutor").click()
    expect(page.get_by_label("Model", exact=True)).to_have_value("tutor-model")
    expect(page.get_by_label("Temperature", exact=True)).to_have_value("0.3")
    page.get_by_label("System prompt").fill("Explain slowly, step by step.")
    page.get_by_role("button", name="Save the persona").click()
    expect(page.get_by_label("System prompt")).to_have_value("")  # the form is reset once saved
    saved = page.request.get(api).json()
    assert (saved["systemPrompt"], saved["summary"], saved["model"], saved["temperature"]) == ("Explain slowly, step by step.", "patient", "tutor-model", 0.3), saved
    # And the two can be changed or cleared in the form.
    page.get_by_role("button", name="Edit tutor").click()
    page.get_by_label("Model", exact=True).fill("")
    page.get_by_label("Temperature", exact=True).fill("0.7")
    page.get_by_role("button", name="Save the persona").click()
    expect(page.get_by_label("System prompt")).to_have_value("")
    saved = page.request.get(api).json()
    assert (saved.get("model"), saved["temperature"]) == (None, 0.7), saved
    assert page.request.delete(api).ok


def test_a_persona_keeps_its_sampling_through_the_form_and_a_built_in_is_copied(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay = "Steady.", 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/settings")
    # A built-in persona is copied under a free name and opened in the form.
    page.get_by_role("button", name="Copy persona translator").click()
    expect(page.get_by_label("Name", exact=True)).to_have_value("translator-copy")
    expect(page.get_by_label("Temperature", exact=True)).to_have_value("0.2")
    expect(page.get_by_label("System prompt")).to_have_value(re.compile("^You are a translator"))
    values = {"Temperature": "0.4", "Longest answer (tokens)": "150", "Top p": "0.85", "Presence penalty": "-0.5", "Frequency penalty": "1.2"}
    for label, value in values.items():
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_label("Summary").fill("my steady translator")
    page.get_by_role("button", name="Save the persona").click()
    expect(page.get_by_label("System prompt")).to_have_value("")
    api = stub_server.url + "/api/v1/personas/translator-copy"
    saved = page.request.get(api).json()
    assert (saved["temperature"], saved["maxTokens"], saved["topP"], saved["presencePenalty"], saved["frequencyPenalty"]) == (0.4, 150, 0.85, -0.5, 1.2), saved
    assert saved["builtIn"] is False and saved["summary"] == "my steady translator"
    # Opened again, the form shows every value; a second copy takes the next free name.
    page.get_by_role("button", name="Edit translator-copy").click()
    for label, value in values.items():
        expect(page.get_by_label(label, exact=True)).to_have_value(value)
    page.get_by_role("button", name="Copy persona translator", exact=True).click()
    expect(page.get_by_label("Name", exact=True)).to_have_value("translator-copy-2")
    # A value out of range is refused by the form before anything is sent.
    page.get_by_label("Top p", exact=True).fill("1.5")
    page.get_by_role("button", name="Save the persona").click()
    assert page.get_by_label("Top p", exact=True).evaluate("input => !input.validity.valid")
    assert page.request.get(stub_server.url + "/api/v1/personas/translator-copy-2").json().get("topP") is None
    for name in ("translator-copy", "translator-copy-2"):
        assert page.request.delete(stub_server.url + "/api/v1/personas/" + name).ok


def test_every_page_opens_without_a_failed_request_or_console_error(stub_server, context):
    # The first thing a page asks (accounts and who is calling) is answered 200 on a server without
    # accounts too: no 404 in the console (it was GET /api/v1/auth/session).
    failed, console = walk_every_page(context.new_page(), stub_server.url)
    assert failed == [], failed
    assert console == [], console


PAGES = [("chat", None), ("documents", "Documents"), ("memory", "Memory"), ("images", "Images"), ("glasses", "Glasses"), ("logs", "Operations log"), ("settings", "Settings")]


def walk_every_page(page, url: str, after_each=lambda view: None):
    """Opens every page in turn, each until it has loaded (`after_each(view)` then looks at it);
    returns the requests that failed and the errors the console and the page's scripts reported."""
    failed, console = [], []
    page.on("response", lambda response: failed.append(f"{response.status} {response.request.method} {response.url}") if response.status >= 400 else None)
    page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: console.append(str(error)))
    for view, heading in PAGES:
        page.goto(f"{url}/#/{view}")
        if heading:
            expect(page.get_by_role("heading", name=heading, level=1)).to_be_visible()
        else:
            expect(page.get_by_label("Your question")).to_be_visible()
        page.wait_for_load_state("networkidle")
        after_each(view)
    return failed, console

def test_a_walk_from_an_empty_data_directory_at_desktop_and_phone_size(browser):
    """A new user's first visit: a server on an empty data directory with nothing configured (the
    local engines, no key), every page at a desktop's and a phone's size, without one failed
    request or console error."""
    from conftest import fresh_server, new_context
    with fresh_server({"SIBYL_SERVE_AUTH": "none"}) as server:
        for size in ({"width": 1100, "height": 760}, {"width": 390, "height": 844}):
            context = new_context(browser)
            context.set_default_timeout(30_000)
            page = context.new_page()
            page.set_viewport_size(size)

            def fits(view, width=size["width"]):
                if width < 400:
                    assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{view} scrolls sideways on a phone"

            failed, console = walk_every_page(page, server.url, fits)
            expect(page.locator("section").filter(has=page.get_by_role("heading", name="Where documents' vectors are searched"))).to_contain_text("Vectors are searched in the knowledge base.")
            context.close()
            assert failed == [], failed
            assert console == [], console


def test_the_log_filters_exports_and_follows(stub_server, model_stub, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/logs")
    expect(page.get_by_role("heading", name="Operations log")).to_be_visible()
    expect(page.locator("table.log tbody tr").first).to_be_visible()
    page.get_by_label("Operation").fill("config")
    page.get_by_role("button", name="Show").click()
    # The table is redrawn when the filtered page arrives: wait until no other operation is left.
    operations = page.locator("table.log tbody td code")
    expect(operations.filter(has_not_text=re.compile(r"^config"))).to_have_count(0)
    expect(operations.first).to_contain_text("config")
    export = page.get_by_role("link", name="Export CSV")
    assert "format=csv" in export.get_attribute("href") and "operation=config" in export.get_attribute("href")
    with page.expect_download() as download:
        export.click()
    exported = download.value.path().read_text()
    assert exported.splitlines()[0] == "at,level,operation,message,details", exported[:200]
    assert len(exported.splitlines()) > 1 and all(",config." in line for line in exported.splitlines()[1:]), exported[:400]
    page.get_by_label("Operation").fill("")
    page.get_by_role("button", name="Show").click()
    page.get_by_label("Follow live").check()
    # Something new to log: a setting changed through the API.
    page.evaluate("fetch('/api/v1/settings/docs.passages', {method: 'PUT', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({value: '4'})})")
    expect(page.locator("table.log tbody tr").first).to_contain_text("docs.passages set", timeout=10_000)
    every_theme(page, "logs")


def test_images_are_drawn_kept_and_shown(stub_server, model_stub, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/images")
    expect(page.get_by_text("No images yet")).to_be_visible()
    # Only the sizes the image model (DALL·E 3 by default) draws.
    expect(page.locator("#image-size option")).to_have_text(["1024 × 1024", "1792 × 1024", "1024 × 1792"])
    page.get_by_label("What to draw").fill("a lighthouse at dawn")
    page.get_by_role("button", name="Draw").click()
    tile = page.locator(".gallery .tile").first
    expect(tile.get_by_role("img", name="a lighthouse at dawn")).to_be_visible()
    tile.locator("img").evaluate("img => img.decode()")  # loaded and decoded, however busy the machine
    assert tile.locator("img").evaluate("img => img.naturalWidth") == 64, "the image is served from Sibyl's storage"
    assert tile.get_by_role("link", name="Download").get_attribute("download").startswith("sibyl-")
    # DALL·E 3 draws one at a time; another model offers its own sizes and more at once.
    expect(page.get_by_label("How many")).to_be_disabled()
    page.get_by_label("Model", exact=True).select_option("dall-e-2")
    expect(page.locator("#image-size option")).to_have_text(["256 × 256", "512 × 512", "1024 × 1024"])
    page.get_by_label("How many").select_option("2")
    page.get_by_label("What to draw").fill("two boats")
    page.get_by_role("button", name="Draw").click()
    expect(page.get_by_role("img", name="two boats")).to_have_count(2)
    drawn = [r for r in model_stub.requests if r.get("prompt") == "two boats"][-1]
    assert (drawn["model"], drawn["n"], drawn["size"]) == ("dall-e-2", 2, "1024x1024"), drawn  # the size chosen before still fits
    every_theme(page, "images")


def test_the_virtual_monocle_is_mirrored_in_the_page(stub_server, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/glasses")
    expect(page.get_by_role("heading", name="Glasses", level=1)).to_be_visible()
    expect(page.get_by_text("No glasses linked.")).to_be_visible()
    page.get_by_role("button", name="Start the virtual Monocle").click()
    card = page.locator(".link-card[data-kind=emulator]")
    expect(card).to_be_visible(timeout=60_000)
    expect(card.locator(".link-state")).to_contain_text("running", timeout=120_000)
    screen = page.locator(".monocle-screen")
    expect(screen).to_have_attribute("aria-label", re.compile("tap", re.IGNORECASE), timeout=60_000)
    # The screen is the server's drawing of it (640×400), with something drawn on the black.
    image = screen.locator("img")
    expect(image).to_have_attribute("src", re.compile(r"/glasses/emulator/screen\.png"))
    image.evaluate("img => img.decode()")
    assert image.evaluate("img => img.naturalWidth") == 640
    lit = image.evaluate("""img => {
        const canvas = document.createElement('canvas');
        canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
        const context = canvas.getContext('2d');
        context.drawImage(img, 0, 0);
        const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
        let lit = 0;
        for (let i = 0; i < pixels.length; i += 4) if (pixels[i] + pixels[i + 1] + pixels[i + 2] > 0) lit += 1;
        return lit;
    }""")
    assert lit > 500, f"only {lit} pixels are lit"
    expect(card).to_contain_text("Firmware")
    every_theme(page, "glasses")
    page.get_by_role("button", name="Stop it").click()
    expect(page.get_by_text("No glasses linked.")).to_be_visible(timeout=30_000)


def test_the_default_chat_model_is_picked_in_the_settings(stub_server, model_stub, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/settings")
    picker = page.get_by_label("Chat model")
    expect(picker).to_have_value("stub-model")
    picker.select_option("stub-model-large")
    expect(page.get_by_text("Saved.")).to_be_visible()
    setting = page.request.get(stub_server.url + "/api/v1/settings/chat.model").json()
    assert setting["value"] == "stub-model-large", setting
    assert page.request.delete(stub_server.url + "/api/v1/settings/chat.model").ok


def test_a_voice_can_be_heard_before_answers_use_it(stub_server, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/settings")
    expect(page.get_by_label("Answers are spoken with")).to_be_visible()
    with page.expect_response(lambda response: response.url.endswith("/api/v1/speech")) as spoken:
        page.get_by_role("button", name="Play a sample").click()
    response = spoken.value
    assert response.status == 200 and response.headers["content-type"].startswith("audio/wav"), response.headers
    assert response.request.post_data_json["text"].startswith("Hello!")
    expect(page.locator(".compact-field:has(#tts-voice) audio")).to_have_attribute("src", re.compile("^blob:"))
    expect(page.get_by_role("button", name="Play a sample")).to_be_enabled()
