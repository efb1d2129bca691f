#!/usr/bin/env python3
"""Would int8 weights keep MiniLM's vectors? Simulates integer matrix products in every linear
layer of all-MiniLM-L6-v2 (weights rounded per output row, activations per token, both
symmetric) and prints the cosine of each text's vector to the float32 one.

Usage: minilm-int8-quality.py --model-dir DIR [--texts FILE]   (run with the bench venv)

The issue allows int8 only if cosine stays >= 0.999. Rounding is simulated in float32, so the
figures are an upper bound for a real integer kernel: one that uses AVX2's vpmaddubsw must also
keep a pair of products below 2^15, i.e. 7-bit weights or activations, which the second and
third rows measure.
"""
import argparse, os, sys, tempfile

CONFIGURATIONS = [  # (weight bits, activation bits, what it stands for)
    (8, 8, "int8 x int8, exact 32-bit sums (VNNI-style)"),
    (7, 8, "7-bit weights, as vpmaddubsw needs without saturating"),
    (8, 7, "7-bit activations, the other way to avoid saturation"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--texts", default="/usr/share/common-licenses/GPL-3",
                        help="lines of at least 30 characters are embedded (default: the GPL's text)")
    parser.add_argument("--limit", type=int, default=300)
    args = parser.parse_args()

    os.environ.setdefault("OMP_NUM_THREADS", "2")
    import torch
    from torch import nn
    from sentence_transformers import SentenceTransformer
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from minilm_reference import prepare_model_directory

    with open(args.texts, encoding="utf-8") as handle:
        texts = [line.strip() for line in handle if len(line.strip()) >= 30][: args.limit]
    with tempfile.TemporaryDirectory(prefix="sibyl-int8-") as scratch:
        prepare_model_directory(args.model_dir, scratch)
        model = SentenceTransformer(scratch, device="cpu")
        model.eval()
        encode = lambda: model.encode(texts, normalize_embeddings=True, convert_to_numpy=True,
                                      show_progress_bar=False)
        with torch.inference_mode():
            reference = encode()
            float_forward = nn.Linear.forward
            for weight_bits, activation_bits, label in CONFIGURATIONS:
                nn.Linear.forward = rounded_forward(weight_bits, activation_bits)
                try:
                    cosines = (encode() * reference).sum(axis=1)
                finally:
                    nn.Linear.forward = float_forward
                print(f"w{weight_bits} a{activation_bits} ({label}): cosine min {cosines.min():.5f} "
                      f"mean {cosines.mean():.5f}, {int((cosines >= 0.999).sum())}/{len(texts)} texts >= 0.999")


def rounded_forward(weight_bits, activation_bits):
    import torch
    from torch.nn import functional
    weight_top, activation_top = 2 ** (weight_bits - 1) - 1, 2 ** (activation_bits - 1) - 1

    def forward(layer, x):
        weight = layer.weight
        weight_scale = weight.abs().amax(dim=1, keepdim=True).clamp(min=1e-12) / weight_top
        activation_scale = x.abs().amax(dim=-1, keepdim=True).clamp(min=1e-12) / activation_top
        rounded_weight = torch.clamp(torch.round(weight / weight_scale), -weight_top, weight_top) * weight_scale
        rounded_x = torch.clamp(torch.round(x / activation_scale), -activation_top, activation_top) * activation_scale
        return functional.linear(rounded_x, rounded_weight, layer.bias)
    return forward


if __name__ == "__main__":
    main()
