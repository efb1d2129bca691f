#!/usr/bin/env python3
"""Validates what Sibyl's Pinecone tests take as given against the 2025-10 specs (openapi-core):
the request goldens (Tests/PineconeVectorsTests/Goldens: what the Swift clients send), the answer
fixtures (Tests/PineconeVectorsTests/Fixtures: what the decoding tests read), and the mock's
hand-written rpcStatus error bodies. Exits non-zero on the first thing the specs do not allow.

It checks the form only: the specs' own gaps (array limits written as string keywords, no
`additionalProperties: false`) are covered by the Swift tests of PineconeLimits.
"""
import glob
import json
import os
import sys

from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from werkzeug.datastructures import ImmutableMultiDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TESTS = os.path.join(ROOT, "Tests", "PineconeVectorsTests")
sys.path.insert(0, HERE)
import mock  # noqa: E402  (the same spec fix-ups as the strict mock)

SPECS = {
    "data": (OpenAPI.from_dict(mock.load("pinecone-db-data-2025-10.yaml")), "https://sibyl-abc123.svc.aped-4627-b74a.pinecone.io"),
    "control": (OpenAPI.from_dict(mock.load("pinecone-db-control-2025-10.yaml")), "https://api.pinecone.io"),
}
RAW = {"data": mock.load("pinecone-db-data-2025-10.yaml"), "control": mock.load("pinecone-db-control-2025-10.yaml")}


def template(spec, path):
    """The spec's path template a concrete path falls under (`/indexes/sibyl` -> `/indexes/{index_name}`)."""
    for candidate in RAW[spec]["paths"]:
        parts, concrete = candidate.strip("/").split("/"), path.strip("/").split("/")
        if len(parts) == len(concrete) and all(a == b or a.startswith("{") for a, b in zip(parts, concrete)):
            return candidate
    sys.exit(f"{path} is not a path of the {spec} spec")


HEADERS = {"Api-Key": mock.API_KEY, "X-Pinecone-Api-Version": mock.VERSION}
# One request per operation, to check answers against (openapi-core finds the operation from it).
PATHS = {
    "queryVectors": ("POST", "/query"), "upsertVectors": ("POST", "/vectors/upsert"), "fetchVectors": ("GET", "/vectors/fetch"),
    "describeIndexStats": ("POST", "/describe_index_stats"), "listVectors": ("GET", "/vectors/list"), "deleteVectors": ("POST", "/vectors/delete"),
    "describe_index": ("GET", "/indexes/sibyl"), "list_indexes": ("GET", "/indexes"), "create_index": ("POST", "/indexes"),
}


def request(spec, method, path, query=(), body=None):
    api, host = SPECS[spec]
    data = None if body is None else json.dumps(body).encode()
    headers = dict(HEADERS, **({"Content-Type": "application/json"} if data is not None else {}))
    return api, MockRequest(host, method, path, args=ImmutableMultiDict(list(query)), headers=headers, data=data)


def main():
    checked = 0
    for file in sorted(glob.glob(os.path.join(TESTS, "Goldens", "*.json"))):
        golden = json.load(open(file))
        api, req = request(golden["spec"], golden["method"], golden["path"], [tuple(item) for item in golden["query"]], golden["body"])
        # openapi-core lets unknown query parameters through (connexion's strict mode does not).
        operation = RAW[golden["spec"]]["paths"][template(golden["spec"], golden["path"])][golden["method"].lower()]
        declared = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        unknown = {name for name, _ in golden["query"]} - declared
        if unknown:
            sys.exit(f"{os.path.basename(file)}: query parameters {sorted(unknown)} are not in the {golden['spec']} spec")
        try:
            api.validate_request(req)
        except Exception as error:  # noqa: BLE001
            sys.exit(f"{os.path.basename(file)}: the {golden['spec']} spec refuses this request: {error} {getattr(error, '__cause__', '')}")
        checked += 1
    fixtures = sorted(glob.glob(os.path.join(TESTS, "Fixtures", "*.json")))
    errors = [("data", "queryVectors", status, body) for status, body in mock.RPC_ERRORS.items()]
    for name, (spec, operation, status, body) in [(os.path.basename(f), (lambda x: (x["spec"], x["operation"], x["status"], x["body"]))(json.load(open(f)))) for f in fixtures] + \
            [(f"rpcStatus {e[2]}", e) for e in errors]:
        method, path = PATHS[operation]
        example_body = {"vectors": [{"id": "1", "values": [0.1]}]} if operation == "upsertVectors" else \
            {"topK": 1, "vector": [0.1]} if operation == "queryVectors" else \
            {"name": "sibyl", "dimension": 3, "metric": "cosine", "spec": {"serverless": {"cloud": "aws", "region": "us-east-1"}}} if operation == "create_index" else \
            ({} if method == "POST" else None)
        query = [("ids", "1")] if operation == "fetchVectors" else []
        api, req = request(spec, method, path, query, example_body)
        try:
            api.validate_response(req, MockResponse(json.dumps(body).encode(), status_code=status))
        except Exception as error:  # noqa: BLE001
            sys.exit(f"{name}: the {spec} spec refuses this {operation} answer: {error} {getattr(error, '__cause__', '')}")
        checked += 1
    print(f"spec-check: {checked} goldens, fixtures and error bodies conform to the 2025-10 specs")


if __name__ == "__main__":
    main()
