#!/usr/bin/env python3
"""Encodes texts with Python tiktoken, for the Swift tokenizer's cross-check tests.

Usage: tiktoken_crosscheck.py --tokenizers-dir DIR --input TEXTS.json
       tiktoken_crosscheck.py --ranks FILE.tiktoken --input TEXTS.json
TEXTS.json is a JSON array of strings. With --ranks, both encodings' patterns and special tokens
are used with the ranks in FILE (a probe vocabulary that makes every split visible) instead of
their own. Prints one JSON object:
  {"tiktoken": version,
   "cl100k_base": [ids per text, encode_ordinary],
   "cl100k_base+special": [ids per text, encode with every special token allowed],
   "o200k_base": [...], "o200k_base+special": [...]}
Rank files are read from DIR (never downloaded); see scripts/bench/tiktoken_reference.py.
"""

import argparse
import json
import os
import sys

# Importing the sibling script must not leave a __pycache__ in the repository.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from tiktoken_reference import local_encoding  # noqa: E402

import tiktoken  # noqa: E402
import tiktoken_ext.openai_public as openai_public  # noqa: E402
from tiktoken.load import load_tiktoken_bpe  # noqa: E402


def probe_encoding(name: str, ranks_file: str) -> tiktoken.Encoding:
    """`name`'s pattern and special tokens with the ranks in `ranks_file`."""
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda _url, expected_hash=None: {}
    try:
        definition = getattr(openai_public, name)()
    finally:
        openai_public.load_tiktoken_bpe = original
    return tiktoken.Encoding(
        name + "_probe",
        pat_str=definition["pat_str"],
        mergeable_ranks=load_tiktoken_bpe(ranks_file),
        special_tokens=definition["special_tokens"],
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokenizers-dir")
    parser.add_argument("--ranks")
    parser.add_argument("--input", required=True)
    args = parser.parse_args()
    with open(args.input, encoding="utf-8") as file:
        texts = json.load(file)
    result = {"tiktoken": tiktoken.__version__}
    for name in ["cl100k_base", "o200k_base"]:
        if args.ranks:
            encoding = probe_encoding(name, args.ranks)
        else:
            encoding = local_encoding(name, args.tokenizers_dir)
        result[name] = [encoding.encode_ordinary(text) for text in texts]
        result[name + "+special"] = [encoding.encode(text, allowed_special="all") for text in texts]
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
