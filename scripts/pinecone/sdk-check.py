#!/usr/bin/env python3
"""Drives the strict Pinecone mock once with the official Python client, pinecone 8.1.2 (API
2025-10), to show that the mock accepts the real client's traffic: the mock the Swift tests trust
is then no stricter and no looser in form than Pinecone's own client.

    sdk-check.py BASE_URL      (the mock's, e.g. http://127.0.0.1:PORT)
"""
import sys
import warnings

warnings.filterwarnings("ignore")
from pinecone import Pinecone  # noqa: E402

base = sys.argv[1].rstrip("/")
pc = Pinecone(api_key="test-key", host=f"{base}/control")
description = pc.describe_index("sibyl-test")
assert description.host, description
index = pc.Index(host=base)
steps = []

upserted = index.upsert(vectors=[("1", [0.5, -0.25, 0.125], {"document_id": 10}), ("2", [0.1, 0.2, 0.3], {"document_id": 11})], namespace="docs")
assert upserted.upserted_count == 2, upserted
steps.append("upsert")
found = index.query(vector=[0.5, -0.25, 0.125], top_k=2, namespace="docs", filter={"document_id": {"$eq": 10}}, include_metadata=True)
assert [match.id for match in found.matches] == ["1", "2"], found
steps.append("query with filter")
fetched = index.fetch(ids=["1", "2"], namespace="docs")
assert set(fetched.vectors) == {"1", "2"}, fetched
steps.append("fetch")
stats = index.describe_index_stats()
assert stats.dimension == 384, stats
steps.append("describe_index_stats")
ids = [id for page in index.list(namespace="docs") for id in page]
assert ids == ["1", "2", "3", "4", "5"], ids
steps.append("list (3 pages)")
index.delete(ids=["1", "2"], namespace="docs")
index.delete(filter={"document_id": {"$eq": 10}}, namespace="docs")
index.delete(delete_all=True, namespace="docs")
steps.append("delete by ids, filter, all")
print("sdk-check: pinecone 8.1.2 against the strict mock:", ", ".join(["describe_index"] + steps))
