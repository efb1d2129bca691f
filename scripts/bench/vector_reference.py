#!/usr/bin/env python3
"""Reference figures for `SibylBenchmarks vectors`: faiss IndexFlatIP (exact top-k) and hnswlib
(HNSW), on the vectors and queries the Swift side generated, with the same thread count.

Inputs are raw little-endian float32 matrices (row-major) and the exact top-k ids (int64) that
recall is measured against. Prints one JSON object on standard output.
Needs the environment made by scripts/bench/setup-vector-reference.sh.
"""
import argparse
import json
import time
from importlib import metadata

import numpy as np


def load(path, dimension):
    return np.fromfile(path, dtype="<f4").reshape(-1, dimension)


def recall(found, truth):
    k = truth.shape[1]
    hits = sum(len(set(row[:k].tolist()) & set(exact.tolist())) for row, exact in zip(found, truth))
    return hits / truth.size


def exact_figures(base, queries, k, threads, single_queries, runs, truth):
    import faiss

    faiss.omp_set_num_threads(threads)
    index = faiss.IndexFlatIP(base.shape[1])
    index.add(base)
    index.search(queries[:8], k)  # warm-up
    start = time.perf_counter()
    for row in range(single_queries):
        index.search(queries[row : row + 1], k)
    single_seconds = time.perf_counter() - start
    best = float("inf")
    ids = None
    for _ in range(runs):
        start = time.perf_counter()
        _, ids = index.search(queries, k)
        best = min(best, time.perf_counter() - start)
    simd = faiss.SIMDConfig.get_level_name() if hasattr(faiss, "SIMDConfig") else faiss.get_compile_options()
    return {
        "version": faiss.__version__,
        "simd": simd,
        "single_qps": single_queries / single_seconds,
        "batch_qps": len(queries) / best,
        "agreement": recall(ids, truth),
    }


def hnsw_figures(base, queries, k, threads, m, ef_construction, seed, efs, target, truth):
    import hnswlib

    index = hnswlib.Index(space="ip", dim=base.shape[1])
    index.init_index(max_elements=len(base), ef_construction=ef_construction, M=m, random_seed=seed)
    start = time.perf_counter()
    index.add_items(base, np.arange(len(base)), num_threads=threads)
    build_seconds = time.perf_counter() - start
    sweep = []
    for ef in efs:
        index.set_ef(max(ef, k))
        index.knn_query(queries[:16], k=k, num_threads=threads)  # warm-up
        start = time.perf_counter()
        labels, _ = index.knn_query(queries, k=k, num_threads=threads)
        seconds = time.perf_counter() - start
        point = {"ef": ef, "recall": recall(labels, truth), "qps": len(queries) / seconds}
        sweep.append(point)
        if point["recall"] >= target:
            break
    return {"version": metadata.version("hnswlib"), "build_seconds": build_seconds, "sweep": sweep}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--ground-truth", required=True)
    parser.add_argument("--dimension", type=int, required=True)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--exact", action="store_true", help="measure faiss IndexFlatIP")
    parser.add_argument("--single-queries", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hnsw", action="store_true", help="measure hnswlib")
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=200)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--efs", default="10,16,32,64,128,256")
    parser.add_argument("--target-recall", type=float, default=0.95)
    args = parser.parse_args()

    base = load(args.base, args.dimension)
    queries = load(args.queries, args.dimension)
    truth = np.fromfile(args.ground_truth, dtype="<i8").reshape(len(queries), -1)[:, : args.k]
    output = {"threads": args.threads, "numpy": np.__version__}
    if args.exact:
        output["faiss"] = exact_figures(base, queries, args.k, args.threads, args.single_queries, args.runs, truth)
    if args.hnsw:
        efs = [int(value) for value in args.efs.split(",")]
        output["hnswlib"] = hnsw_figures(
            base, queries, args.k, args.threads, args.m, args.ef_construction, args.seed, efs, args.target_recall, truth
        )
    print(json.dumps(output))


if __name__ == "__main__":
    main()
