#!/usr/bin/env python3
"""Drives Sibyl's OpenAI-compatible endpoints with the official OpenAI Python SDK.

Usage: check.py --base-url http://127.0.0.1:8080/v1 [--only NAME ...] [--audio FILE.wav]
Prints one line per check (PASS/FAIL) and a JSON summary; exits 0 only when every check passed.
"""
import argparse
import base64
import json
import struct
import sys
import time

import openai


class CheckFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def check_models(client, args):
    ids = [model.id for model in client.models.list()]
    for wanted in ("sibyl-assistant", "sibyl-concise", "sibyl-assistant-docs"):
        expect(wanted in ids, f"{wanted} is not listed: {ids}")
    return f"{len(ids)} models"


def check_chat(client, args):
    answer = client.chat.completions.create(
        model="sibyl-assistant", temperature=0,
        messages=[{"role": "user", "content": "What is the capital of France? Answer in one word."}],
    )
    text = answer.choices[0].message.content or ""
    expect(answer.id, "no id")
    expect(text.strip(), "empty answer")
    expect(answer.choices[0].finish_reason in ("stop", "length"), f"finish_reason {answer.choices[0].finish_reason}")
    expect(answer.usage and answer.usage.total_tokens > 0, "no usage")
    if args.expect_word:
        expect(args.expect_word.lower() in text.lower(), f"{args.expect_word!r} not in {text!r}")
    return repr(text)


def check_stream(client, args):
    started = time.monotonic()
    first = None
    pieces, usage_chunks, finish = [], 0, None
    stream = client.chat.completions.create(
        model="sibyl-assistant", temperature=0, stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "Name the capital of France and say one thing about it."}],
    )
    for chunk in stream:
        if chunk.usage is not None:
            usage_chunks += 1
            expect(chunk.choices == [], "the usage chunk has choices")
            expect(chunk.usage.completion_tokens > 0, "no completion tokens")
            continue
        for choice in chunk.choices:
            if choice.delta.content:
                if first is None:
                    first = time.monotonic() - started
                pieces.append(choice.delta.content)
            if choice.finish_reason:
                finish = choice.finish_reason
    text = "".join(pieces)
    expect(len(pieces) >= 2, f"only {len(pieces)} content deltas")
    expect(usage_chunks == 1, f"{usage_chunks} usage chunks")
    expect(finish is not None, "no finish_reason")
    if args.expect_word:
        expect(args.expect_word.lower() in text.lower(), f"{args.expect_word!r} not in {text!r}")
    return f"{len(pieces)} deltas, first after {first:.2f} s: {text[:60]!r}"


def check_persona(client, args):
    answer = client.chat.completions.create(
        model="sibyl-concise", temperature=0, messages=[{"role": "user", "content": "Why is the sky blue?"}],
    )
    text = answer.choices[0].message.content or ""
    expect(text.strip(), "empty answer")
    return repr(text[:80])


def check_docs(client, args):
    messages = [{"role": "user", "content": args.docs_question}]
    whole = client.chat.completions.create(model="sibyl-assistant-docs", temperature=0, messages=messages)
    text = whole.choices[0].message.content or ""
    expect("Sources:" in text, f"no sources in {text!r}")
    expect("[1]" in text, f"no citation in {text!r}")
    expect(args.docs_expect.lower() in text.lower(), f"{args.docs_expect!r} not in {text!r}")
    streamed = "".join(
        choice.delta.content or ""
        for chunk in client.chat.completions.create(model="sibyl-assistant-docs", temperature=0, messages=messages, stream=True)
        for choice in chunk.choices
    )
    expect("Sources:" in streamed, f"no sources in the streamed answer {streamed!r}")
    return repr(text[:120])


def check_embeddings(client, args):
    floats = client.embeddings.create(model="sibyl-embeddings", input=["hello world", "goodbye"])
    expect(len(floats.data) == 2, f"{len(floats.data)} vectors")
    dimension = len(floats.data[0].embedding)
    expect(dimension > 0 and len(floats.data[1].embedding) == dimension, "uneven dimensions")
    # The SDK asks for base64 unless told otherwise and decodes it; ask for it explicitly through the raw response too.
    raw = client.embeddings.with_raw_response.create(model="sibyl-embeddings", input="hello world", encoding_format="base64")
    encoded = json.loads(raw.text)["data"][0]["embedding"]
    decoded = struct.unpack(f"<{dimension}f", base64.b64decode(encoded))
    expect(all(abs(a - b) < 1e-6 for a, b in zip(decoded, floats.data[0].embedding)), "base64 and float vectors differ")
    return f"{dimension} dimensions"


def check_transcription(client, args):
    if not args.audio:
        return "skipped (no --audio)"
    with open(args.audio, "rb") as file:
        result = client.audio.transcriptions.create(model="whisper-1", file=file)
    expect(result.text.strip(), "empty transcript")
    if args.audio_expect:
        expect(args.audio_expect.lower() in result.text.lower(), f"{args.audio_expect!r} not in {result.text!r}")
    return repr(result.text)


def check_speech(client, args):
    wav = client.audio.speech.create(model="tts-1", voice="alloy", input="Hello from Sibyl.", response_format="wav").content
    expect(wav[:4] == b"RIFF" and len(wav) > 1000, f"not a WAV ({len(wav)} bytes)")
    mp3 = client.audio.speech.create(model="tts-1", voice="alloy", input="Hello from Sibyl.").content
    expect(len(mp3) > 100 and (mp3[:3] == b"ID3" or mp3[0] == 0xFF), f"not an MP3 ({mp3[:4]!r})")
    return f"wav {len(wav)} bytes, mp3 {len(mp3)} bytes"


def check_errors(client, args):
    try:
        client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
        raise CheckFailed("an unknown model was accepted")
    except openai.NotFoundError as error:
        expect("no-such-model" in str(error), f"the message does not name the model: {error}")
    try:
        client.chat.completions.create(model="sibyl-assistant", messages=[])
        raise CheckFailed("an empty message list was accepted")
    except openai.BadRequestError:
        pass
    return "404 and 400 as OpenAI's SDK expects"


CHECKS = {
    "models": check_models, "chat": check_chat, "stream": check_stream, "persona": check_persona, "docs": check_docs,
    "embeddings": check_embeddings, "transcription": check_transcription, "speech": check_speech, "errors": check_errors,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--api-key", default="sk-local-unused")
    parser.add_argument("--only", nargs="*", choices=sorted(CHECKS), default=None)
    parser.add_argument("--expect-word", help="a word the chat answers must contain (e.g. Paris)")
    parser.add_argument("--docs-question", default="What is the staff wifi password at the Kestrel Lane office?")
    parser.add_argument("--docs-expect", default="violet-harbor-42")
    parser.add_argument("--audio", help="a recording for the transcription check")
    parser.add_argument("--audio-expect", help="a word the transcript must contain")
    args = parser.parse_args()
    client = openai.OpenAI(base_url=args.base_url, api_key=args.api_key, timeout=300, max_retries=0)
    results = {}
    for name in args.only or list(CHECKS):
        started = time.monotonic()
        try:
            detail = CHECKS[name](client, args)
            results[name] = True
            print(f"PASS {name}: {detail} ({time.monotonic() - started:.1f} s)", flush=True)
        except Exception as error:  # every failure is reported, then the next check runs
            results[name] = False
            print(f"FAIL {name}: {type(error).__name__}: {error}", flush=True)
    print(json.dumps({"openai": openai.__version__, "passed": sum(results.values()), "failed": [n for n, ok in results.items() if not ok]}))
    sys.exit(0 if all(results.values()) else 1)


if __name__ == "__main__":
    main()
