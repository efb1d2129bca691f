#!/usr/bin/env python3
"""Asks a running `sibyl serve` what a Frame wearer asks through Brilliant's Noa app, with requests made
byte for byte as the app makes them (noa_app.py), and checks what the app reads back: the transcript, the
answer, topic changes, the spoken answer, and the refusals. Prints Sibyl's time per request by stage.

    python3 scripts/noa/check.py --endpoint http://127.0.0.1:8080/api/v1/noa --token sibyl_... [--expect-audio] [--sibyl PATH]

The questions are spoken by Sibyl's local voice and narrowed by sox to what Frame records (8 kHz,
signed 8-bit).
Exits 1 when a check fails. Standard library only.
"""
import argparse, datetime, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import noa_app  # noqa: E402

failures = []
SIBYL = "sibyl"


def check(ok, name, detail=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else f": {detail}"), flush=True)
    if not ok:
        failures.append(name)
    return ok


def spoken(text: str) -> bytes:
    """`text` spoken by Sibyl's local voice (Piper's joe when installed, else espeak-ng) through
    `sibyl speak`, with half a second of quiet around it, as Frame's signed 8-bit samples at 8 kHz
    (sox resamples it, as the glasses' microphone filters before it samples)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "question.wav"
        subprocess.run([SIBYL, "speak", text, "--output", str(path)], check=True, capture_output=True)
        raw = subprocess.run(["sox", str(path), "-r", "8000", "-c", "1", "-b", "8", "-e", "signed-integer", "-t", "raw", "-"],
                             check=True, capture_output=True).stdout
    return bytes(4000) + raw + bytes(4000)


def ask(args, audio, history, header_value=None, image=None, tweak=None):
    request = noa_app.NoaAppRequest(
        args.endpoint, "Authorization", header_value if header_value is not None else f"Bearer {args.token}",
        audio, image, history, location="1 Rue de Rivoli, Paris", time=datetime.datetime.now())
    if tweak:
        tweak(request)
    started = time.monotonic()
    try:
        response = request.send(timeout=600)
    except (BrokenPipeError, ConnectionResetError) as error:  # a refusal sent before the body was read
        return None, time.monotonic() - started, error
    return response, time.monotonic() - started, None


def answered(args, name, audio, history, image=None):
    response, seconds, error = ask(args, audio, history, image=image)
    if not check(response is not None and response.status == 200, f"{name}: 200",
                 error or (response and f"{response.status} {response.reason} {response.body[:300]!r}")):
        return None
    reply = response.parsed()  # raises where the app would crash
    debug = noa_app.json.loads(response.body)["debug"]
    timings = debug.get("timings_ms", {})
    stages = ", ".join(f"{k} {timings[k]} ms" for k in ("receive", "decode", "transcribe", "topic", "answer", "speech", "total") if k in timings)
    print(f"     heard {reply['user_prompt']!r}; answered {reply['message']!r}; topic_changed {reply['topic_changed']}; "
          f"similarity {debug.get('similarity')}; in {seconds * 1000:.0f} ms at the client; Sibyl: {stages}", flush=True)
    reply["conversation"] = debug.get("conversation_id")
    reply["timings"] = timings
    return reply


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--expect-audio", action="store_true", help="glasses.spoken_answers is on")
    parser.add_argument("--sibyl", default="sibyl", help="the sibyl program that speaks the questions")
    args = parser.parse_args()
    global SIBYL
    SIBYL = args.sibyl

    capital = spoken("What is the capital of France?")
    photo = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4 + b"\xff\xd9"
    first = answered(args, "a first question, with a photo", capital, [], image=photo)
    if first:
        # espeak's "of France" was once heard as "O friend" on a loaded machine: the question's
        # first words prove the audio was decoded and heard; the answer naming Paris, the rest.
        check(first["user_prompt"].lower().startswith("what is the capital"), "the transcript", first["user_prompt"])
        check("paris" in first["message"].lower(), "the answer names Paris", first["message"])
        check(not first["topic_changed"], "a first question changes no subject")
        check(first["message"].startswith("I couldn't look at your photo"), "the photo is said not to have been looked at (no vision model)", first["message"])
        if args.expect_audio:
            audio = first["audio"] or b""
            check(audio[:3] == b"ID3" or audio[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"), "the answer spoken, as MP3", audio[:8])
        else:
            check(first["audio"] is None, "no audio unless glasses.spoken_answers is on")
    history = [{"role": "user", "content": first["user_prompt"]}, {"role": "assistant", "content": first["message"]}] if first else []

    follow = answered(args, "a follow-up", spoken("How many people live there?"), history)
    if follow and first:
        check(not follow["topic_changed"], "a follow-up keeps the subject")
        check(follow["conversation"] == first["conversation"], "... and the conversation")
        history += [{"role": "user", "content": follow["user_prompt"]}, {"role": "assistant", "content": follow["message"]}]

    other = answered(args, "a new subject", spoken("How do I boil an egg?"), history)
    if other and first:
        check(other["topic_changed"], "a new subject is told to the app")
        check(other["conversation"] != first["conversation"], "... and starts a new conversation")

    # Refusals: the app shows "NoaApiServerException: STATUS: REASON".
    def refused(name, status, **options):
        response, _, error = ask(args, options.pop("audio", capital), [], **options)
        if response is None:
            return check(False, name, f"the connection broke: {error!r}")
        try:
            response.parsed()
            return check(False, name, "answered 200")
        except noa_app.NoaApiServerError as refusal:
            print(f"     the app shows: {refusal}", flush=True)
            return check(refusal.status == status and refusal.reason, f"{name}: {status}", f"{refusal.status} {refusal.reason!r}")

    refused("no token", 401, header_value="")
    refused("a wrong token", 401, header_value="Bearer sibyl_not-a-token")
    refused("silence", 422, audio=bytes(16000))
    refused("no samples at all", 422, audio=b"")
    refused("a truncated WAV", 422, tweak=lambda r: r.files.__setitem__(0, ("audio", "audio.wav", noa_app.bytes_to_wav(b"\x01" * 100)[:30])))
    refused("an image over the upload limit", 413, image=b"\xff\xd8\xff\xe0" + bytes(3 << 20))
    refused("history that is not a JSON list", 400, tweak=lambda r: r.fields.__setitem__(0, ("messages", "{oops")))

    print(f"{len(failures)} check(s) failed" if failures else "all checks passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
