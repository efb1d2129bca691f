"""Live captions from the glasses page: the virtual Monocle run by the server, started in the
Live captions mode, hears speech sent to its microphone at its real pace; the page shows the
captions as they come, a tap on the page's Tap button pauses and resumes them, and the transcript
is kept in a conversation with source captions."""

import re

from playwright.sync_api import expect

from conftest import every_theme, screenshot, spoken_question


def test_live_captions_on_the_virtual_monocle(stub_server, context, tmp_path):
    page = context.new_page()
    page.goto(stub_server.url + "/#/glasses")
    expect(page.get_by_text("No glasses linked.")).to_be_visible()
    virtual = page.locator("section[aria-labelledby=virtual-title]")
    virtual.get_by_label("Mode").select_option(label="Live captions")
    expect(virtual.get_by_label("Translate captions into")).to_be_visible()
    page.get_by_role("button", name="Start the virtual Monocle").click()
    card = page.locator(".link-card[data-kind=emulator]")
    expect(card.locator(".link-state")).to_contain_text("running", timeout=120_000)
    # The app records on and on once Sibyl starts captions, and says a tap pauses them.
    screen = page.locator(".monocle-screen")
    expect(screen).to_have_attribute("aria-label", re.compile("Captions: tap to pause"), timeout=60_000)
    expect(page.get_by_role("button", name="Hold")).to_be_hidden()

    recording = spoken_question(tmp_path).read_bytes()
    response = page.request.post(stub_server.url + "/api/v1/glasses/emulator/microphone",
                                 multipart={"file": {"name": "speech.wav", "mimeType": "audio/wav", "buffer": recording}})
    assert response.status == 202, response.text()
    captions = card.locator(".captions")
    expect(captions).to_contain_text(re.compile("capital", re.IGNORECASE), timeout=120_000)
    expect(screen).to_have_attribute("aria-label", re.compile("France", re.IGNORECASE), timeout=60_000)
    screenshot(page, "glasses-captions")

    # A tap pauses (the glasses say so), another resumes.
    page.get_by_role("button", name="Tap", exact=True).click()
    expect(card).to_contain_text("Captions (paused: tap to resume)", timeout=30_000)
    expect(screen).to_have_attribute("aria-label", re.compile("Paused: tap to resume"), timeout=30_000)
    page.get_by_role("button", name="Tap", exact=True).click()
    expect(screen).to_have_attribute("aria-label", re.compile("Captions: tap to pause"), timeout=30_000)
    every_theme(page, "glasses-captions")

    # The transcript is a conversation of its own.
    kept = page.request.get(stub_server.url + "/api/v1/conversations?source=captions").json()
    items = kept["items"] if isinstance(kept, dict) else kept
    assert len(items) == 1, kept
    page.get_by_role("button", name="Stop it").click()
    expect(page.get_by_text("No glasses linked.")).to_be_visible(timeout=30_000)
