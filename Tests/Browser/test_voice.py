"""Speaking a question in the browser: the fake microphone plays 1.5 s of silence, a spoken
question and 3.5 s of silence; the silence detector (not a timeout) stops the recording, the
local Whisper transcribes it, the answer streams in and is spoken back. Each test prints where the
time went from the end of speech to the first answer token: once with a scripted model, once with
the local chat model (everything offline, as a user without a key has it)."""

import pytest
from playwright.sync_api import expect

from conftest import fresh_server, screenshot


@pytest.fixture(scope="module")
def offline_server():
    """A server on the local engines only: no provider, no key."""
    with fresh_server({"SIBYL_SERVE_AUTH": "none"}) as server:
        yield server


def ask_aloud(page):
    """Presses Speak and waits until the transcript is the question; the recorder stops by itself."""
    page.get_by_role("button", name="Speak").click()
    expect(page.get_by_role("button", name="Stop recording")).to_be_visible()
    expect(page.locator("meter.level")).to_be_visible()
    # The detector stops by itself after the speech; nobody presses stop.
    own = page.locator(".bubble.own").last
    expect(own.locator(".body")).to_contain_text("capital", timeout=120_000, ignore_case=True)


def voice_figures(page, model: str) -> dict:
    """The page's timings of the last spoken question (heard live: the server hears the end of
    speech, and says how long after it the transcript was ready), checked and printed."""
    page.wait_for_function("() => window.sibylLastVoice?.firstTokenAt !== undefined")
    voice = page.evaluate("""() => {
        const v = window.sibylLastVoice;
        return v && {live: v.live, ended: v.speechEndedAt, transcribed: v.transcribedAt, first: v.firstTokenAt, audio: v.firstAudioAt ?? null, server: v.server};
    }""")
    assert voice and voice["live"], "the question went over the live socket"
    server = voice["server"]
    assert server and server["transcribe"] > 0, f"the server reports its timings: {server}"
    heard = server["transcribe"]
    assert heard >= 300, f"the transcript came {heard} ms after the end of speech: after a quiet, not before the speech ended"
    assert heard < 3000, "the end was heard in the silence, long before it ran out"
    to_first_token = voice["first"] - voice["transcribed"]
    total = voice["first"] - voice["ended"]
    audio = f"; first audio {voice['audio'] - voice['ended']:.0f} ms" if voice["audio"] else ""
    print(f"[voice] live. From the end of speech to the first answer token: {total:.0f} ms = "
          f"end heard and transcribed on the server {heard} ms after the last frame Silero judged speech (Moonshine, partial transcripts) "
          f"+ to the page and the model's first token {to_first_token:.0f} ms ({model}){audio}")
    return voice


def test_a_spoken_question_is_stopped_by_silence_transcribed_answered_and_played(stub_server, model_stub, context):
    model_stub.answer, model_stub.delay = "Paris is the capital of France.", 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    page.get_by_label("Speak answers aloud").check()
    ask_aloud(page)
    answer = page.locator(".bubble.answer").last
    expect(answer.locator(".body")).to_have_text("Paris is the capital of France.", timeout=120_000)
    expect(answer.locator("audio")).to_have_count(1, timeout=60_000)
    voice_figures(page, "a scripted stub")
    screenshot(page, "chat-voice")


def test_a_spoken_question_answered_by_the_local_model(offline_server, context):
    page = context.new_page()
    page.goto(offline_server.url + "/#/chat")
    # A typed question first starts the local model, so the figure is an answer's, not a start-up's.
    page.get_by_label("Your question").fill("Say OK.")
    page.get_by_label("Your question").press("Enter")
    expect(page.locator(".bubble.answer").last).to_have_attribute("data-status", "complete", timeout=600_000)
    expect(page.get_by_role("heading", level=1)).not_to_have_text("New conversation", timeout=600_000)
    ask_aloud(page)
    answer = page.locator(".bubble.answer").last
    expect(answer).to_have_attribute("data-status", "complete", timeout=600_000)
    expect(answer.locator(".body")).not_to_be_empty()
    voice_figures(page, "the local chat model on llama.cpp")


def test_a_page_busy_while_the_question_is_spoken_loses_none_of_its_words(stub_server, model_stub, context):
    """The microphone's sound is taken on the audio thread: a page whose own thread is held for
    5 s from the moment the microphone opens (the lead-in silence and the whole question) sends
    every block once it is free, so the server hears the whole question. (The ScriptProcessorNode
    used before dropped the blocks of a busy page: a loaded CI machine heard "The carpet's all on
    front".)"""
    model_stub.answer, model_stub.delay = "Paris.", 0.0
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    page.get_by_role("button", name="Speak").click()
    expect(page.get_by_role("button", name="Stop recording")).to_be_visible()
    page.evaluate("() => { const end = performance.now() + 5000; while (performance.now() < end) {} }")
    own = page.locator(".bubble.own").last
    expect(own.locator(".body")).to_contain_text("capital", timeout=120_000, ignore_case=True)
    heard = own.locator(".body").inner_text().lower()
    # The first and the last word of the question both arrived (speech-to-text may still hear
    # "of" as "on"; a lost block loses whole words).
    assert heard.startswith("what") and "france" in heard, heard
    expect(page.locator(".bubble.answer").last.locator(".body")).to_have_text("Paris.", timeout=120_000)


def test_an_answer_is_spoken_sentence_by_sentence_and_hands_free_listens_again(stub_server, model_stub, context):
    """The first sentence plays while the model is held before the rest; the stage times show on
    request; hands-free listens again at once, and speaking over the answer (the fake microphone
    starts its question again) stops the playback and asks the next question."""
    model_stub.answer = "Paris is the capital of France. It sits on the river Seine. Its museums are famous all over the world."
    model_stub.delay, model_stub.hold_after = 0.0, 7  # held after "… of France. It": the first sentence has ended
    model_stub.release.clear()
    try:
        page = context.new_page()
        page.goto(stub_server.url + "/#/chat")
        page.get_by_label("Speak answers aloud").check()
        page.get_by_label("Keep listening (hands-free)").check()
        ask_aloud(page)
        answer = page.locator(".bubble.answer").first
        page.wait_for_function("() => window.sibylLastVoice?.firstAudioAt !== undefined", timeout=120_000)
        expect(answer).to_have_attribute("data-status", "pending")
        assert answer.locator("audio").count() == 1, "the first sentence plays in the answer's bubble"
        model_stub.hold_after = None
        model_stub.release.set()
        expect(answer).to_have_attribute("data-status", "complete", timeout=120_000)
        # Stage times, on request, in the question's bubble.
        own = page.locator(".bubble.own").first
        own.locator("details.timings summary").click()
        expect(own.locator("details.timings")).to_contain_text("first audio", timeout=60_000)
        timings = own.locator("details.timings").inner_text()
        print(f"[voice] {timings}")
        # Hands-free: listening again at once; the question spoken over the answer stops it.
        page.wait_for_function("() => (window.sibylBargedIn ?? 0) >= 1", timeout=120_000)
        expect(page.locator(".bubble.own")).to_have_count(2, timeout=120_000)
        expect(page.locator(".bubble.own").nth(1).locator(".body")).to_contain_text("capital", timeout=120_000, ignore_case=True)
        screenshot(page, "chat-voice-hands-free")
        page.get_by_label("Keep listening (hands-free)").uncheck()
    finally:
        model_stub.hold_after = None
        model_stub.release.set()


def test_the_voice_is_picked_in_the_settings_and_speaks_the_answers(stub_server, context):
    """The settings offer Piper's joe and every espeak-ng voice; the one picked is tts.voice, and
    the default clears it again."""
    page = context.new_page()
    page.goto(stub_server.url + "/#/settings")
    picker = page.get_by_label("Answers are spoken with")
    expect(picker).to_be_visible(timeout=60_000)
    expect(picker.locator("option", has_text="Joe (Piper, natural English)")).to_have_count(1)
    assert picker.locator("option").count() > 20, "every espeak-ng voice is offered"
    french = next(value for value in picker.locator("option").evaluate_all("options => options.map(o => o.value)") if value.startswith("fr"))
    picker.select_option(french)
    expect(page.get_by_text("Saved")).to_be_visible()
    setting = page.request.get(stub_server.url + "/api/v1/settings/tts.voice").json()
    assert setting["value"] == french, setting
    spoken = page.request.post(stub_server.url + "/api/v1/speech", data={"text": "Bonjour."})
    assert spoken.ok and spoken.headers["content-type"] == "audio/wav", spoken.text()
    picker.select_option("")
    page.wait_for_function("""async () => (await (await fetch('/api/v1/settings/tts.voice')).json()).value == null""")
