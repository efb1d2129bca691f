#!/usr/bin/env python3
"""The reference side of `swift run -c release TokenizerBenchmark`: times Python tiktoken
(its Rust core, one thread) encoding a corpus, and writes the token ids for comparison.

Rank files come from a local directory (never downloaded), with tiktoken's own pattern and
special tokens for the encoding, and are checked against tiktoken's pinned sha256.

Usage:
  tiktoken_reference.py --encoding cl100k_base --corpus FILE --tokenizers-dir DIR
                        [--iterations 3] [--tokens-out FILE]
Prints one JSON object: encoding, tiktoken version, bytes, tokens, best seconds.
--tokens-out writes the ids of the last run as little-endian uint32.
"""

import argparse
import array
import hashlib
import json
import os
import sys
import time

# Read rank files directly: no download, no copy in tiktoken's cache directory.
os.environ["TIKTOKEN_CACHE_DIR"] = ""

import tiktoken  # noqa: E402
import tiktoken_ext.openai_public as openai_public  # noqa: E402
from tiktoken.load import load_tiktoken_bpe  # noqa: E402


def local_encoding(name: str, directory: str) -> tiktoken.Encoding:
    """tiktoken's definition of `name` (pattern, special tokens), with ranks from `directory`."""
    path = os.path.join(directory, f"{name}.tiktoken")

    def load_local(_url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        with open(path, "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
        if expected_hash and digest != expected_hash:
            raise SystemExit(f"{path}: sha256 {digest} is not tiktoken's {expected_hash}")
        return load_tiktoken_bpe(path)

    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = load_local
    try:
        definition = getattr(openai_public, name)()
    finally:
        openai_public.load_tiktoken_bpe = original
    return tiktoken.Encoding(**definition)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--encoding", required=True, choices=["cl100k_base", "o200k_base"])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--tokenizers-dir", required=True)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--tokens-out")
    args = parser.parse_args()

    encoding = local_encoding(args.encoding, args.tokenizers_dir)
    with open(args.corpus, "rb") as file:
        data = file.read()
    text = data.decode("utf-8")

    encoding.encode_ordinary("warm up")
    best = float("inf")
    tokens: list[int] = []
    for _ in range(max(1, args.iterations)):
        start = time.perf_counter()
        tokens = encoding.encode_ordinary(text)
        best = min(best, time.perf_counter() - start)

    if args.tokens_out:
        with open(args.tokens_out, "wb") as file:
            ids = array.array("I", tokens)
            if sys.byteorder != "little":
                ids.byteswap()
            ids.tofile(file)
    print(json.dumps({
        "encoding": args.encoding,
        "tiktoken": tiktoken.__version__,
        "bytes": len(data),
        "tokens": len(tokens),
        "seconds": best,
    }))


if __name__ == "__main__":
    main()
