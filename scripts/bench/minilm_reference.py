#!/usr/bin/env python3
"""Reference timings for `SibylBenchmarks minilm`: sentence-transformers (PyTorch, CPU).

Reads the passages and the query from a JSON file written by the Swift benchmark, loads
all-MiniLM-L6-v2 (or, with --model mpnet, all-mpnet-base-v2) from the same directory the Swift
embedder uses (model.safetensors and vocab.txt; the configuration files sentence-transformers also
wants are written to a temporary directory beside links to those two files), and prints one JSON
object with the timings. Never touches the network. Run it inside the environment made by
scripts/bench/setup-reference.sh.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# The all-MiniLM-L6-v2 configuration, as published with the model.
BERT_CONFIG = {
    "architectures": ["BertModel"],
    "model_type": "bert",
    "hidden_act": "gelu",
    "hidden_size": 384,
    "intermediate_size": 1536,
    "num_attention_heads": 12,
    "num_hidden_layers": 6,
    "max_position_embeddings": 512,
    "type_vocab_size": 2,
    "vocab_size": 30522,
    "layer_norm_eps": 1e-12,
    "pad_token_id": 0,
    "position_embedding_type": "absolute",
    "attention_probs_dropout_prob": 0.1,
    "hidden_dropout_prob": 0.1,
    "initializer_range": 0.02,
}
TOKENIZER_CONFIG = {
    "tokenizer_class": "BertTokenizer",
    "do_lower_case": True,
    "tokenize_chinese_chars": True,
    "strip_accents": None,
    "unk_token": "[UNK]",
    "sep_token": "[SEP]",
    "pad_token": "[PAD]",
    "cls_token": "[CLS]",
    "mask_token": "[MASK]",
    "model_max_length": 512,
}
# The all-mpnet-base-v2 configuration, as published with the model.
MPNET_CONFIG = {
    "architectures": ["MPNetForMaskedLM"],
    "model_type": "mpnet",
    "hidden_act": "gelu",
    "hidden_size": 768,
    "intermediate_size": 3072,
    "num_attention_heads": 12,
    "num_hidden_layers": 12,
    "max_position_embeddings": 514,
    "relative_attention_num_buckets": 32,
    "vocab_size": 30527,
    "layer_norm_eps": 1e-05,
    "bos_token_id": 0,
    "eos_token_id": 2,
    "pad_token_id": 1,
    "attention_probs_dropout_prob": 0.1,
    "hidden_dropout_prob": 0.1,
    "initializer_range": 0.02,
}
MPNET_TOKENIZER_CONFIG = {
    "tokenizer_class": "MPNetTokenizer",
    "do_lower_case": True,
    "tokenize_chinese_chars": True,
    "strip_accents": None,
    "bos_token": "<s>",
    "eos_token": "</s>",
    "unk_token": "[UNK]",
    "sep_token": "</s>",
    "pad_token": "<pad>",
    "cls_token": "<s>",
    "mask_token": "<mask>",
    "model_max_length": 512,
}
# Per model: configuration, tokenizer configuration, longest input, vector length.
MODELS = {
    "minilm": (BERT_CONFIG, TOKENIZER_CONFIG, 256, 384),
    "mpnet": (MPNET_CONFIG, MPNET_TOKENIZER_CONFIG, 384, 768),
}
MODULES = [
    {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
]
POOLING = {
    "pooling_mode_cls_token": False,
    "pooling_mode_mean_tokens": True,
    "pooling_mode_max_tokens": False,
    "pooling_mode_mean_sqrt_len_tokens": False,
}


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(value, handle)


def prepare_model_directory(model_dir, scratch, model):
    """A sentence-transformers model directory that links to the weights and vocabulary."""
    config, tokenizer_config, max_tokens, dimension = MODELS[model]
    for name in ("model.safetensors", "vocab.txt"):
        source = os.path.join(model_dir, name)
        if not os.path.isfile(source):
            sys.exit(f"error: {source} is missing")
        os.symlink(os.path.abspath(source), os.path.join(scratch, name))
    write_json(os.path.join(scratch, "config.json"), config)
    write_json(os.path.join(scratch, "tokenizer_config.json"), tokenizer_config)
    write_json(os.path.join(scratch, "modules.json"), MODULES)
    write_json(os.path.join(scratch, "sentence_bert_config.json"), {"max_seq_length": max_tokens, "do_lower_case": False})
    os.makedirs(os.path.join(scratch, "1_Pooling"))
    write_json(os.path.join(scratch, "1_Pooling", "config.json"), dict(POOLING, word_embedding_dimension=dimension))
    os.makedirs(os.path.join(scratch, "2_Normalize"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--model", choices=sorted(MODELS), default="minilm")
    parser.add_argument("--input", required=True, help="JSON with 'passages' (list) and 'query' (string)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5, help="timed batch runs (best is reported)")
    parser.add_argument("--query-runs", type=int, default=50, help="timed query runs (median is reported)")
    parser.add_argument("--batch-size", type=int, default=32, help="sentence-transformers' encode batch size")
    parser.add_argument("--embeddings-out", help="write the passages' vectors here as float32, row after row")
    args = parser.parse_args()

    # Thread counts must be fixed before torch starts its pools.
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(args.threads)
    torch.set_num_interop_threads(1)

    with open(args.input, encoding="utf-8") as handle:
        work = json.load(handle)
    passages, query = work["passages"], work["query"]

    with tempfile.TemporaryDirectory(prefix="sibyl-minilm-") as scratch:
        prepare_model_directory(args.model_dir, scratch, args.model)
        model = SentenceTransformer(scratch, device="cpu")
        model.eval()

        def encode(texts):
            return model.encode(texts, batch_size=args.batch_size, normalize_embeddings=True,
                                convert_to_numpy=True, show_progress_bar=False)

        with torch.inference_mode():
            vectors = encode(passages)  # warm-up
            batch_times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                encode(passages)
                batch_times.append(time.perf_counter() - start)
            for _ in range(5):
                encode([query])
            query_times = []
            for _ in range(args.query_runs):
                start = time.perf_counter()
                encode([query])
                query_times.append(time.perf_counter() - start)

        token_counts = [len(ids) for ids in model.tokenizer(passages, truncation=True, max_length=MODELS[args.model][2])["input_ids"]]
        if args.embeddings_out:
            np.asarray(vectors, dtype="<f4").tofile(args.embeddings_out)

    import sentence_transformers
    print(json.dumps({
        "tool": "sentence-transformers",
        "version": sentence_transformers.__version__,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "batch_size": args.batch_size,
        "passages": len(passages),
        "mean_tokens": sum(token_counts) / len(token_counts),
        "batch_seconds_best": min(batch_times),
        "batch_seconds_all": batch_times,
        "query_seconds_median": statistics.median(query_times),
        "query_seconds_min": min(query_times),
    }))


if __name__ == "__main__":
    main()
