#!/usr/bin/env python3
"""A strict Pinecone mock for Sibyl's tests: the 2025-10 data and control planes served from their
OpenAPI documents by connexion, validating every request and every answer.

    mock.py PORT

serves, on 127.0.0.1:PORT,
  /...                the data plane (an index's host is 127.0.0.1:PORT)
  /control/...        the control plane (pinecone.control_url = http://127.0.0.1:PORT/control)
  /_faults/ID/...     either plane, answering first with what scenario ID scripts (PUT
                      /_scenarios/ID with [{"status": 503}, ...]; hand-written rpcStatus bodies for
                      400/401/404/429/500/503 unless a body is given), then as the strict mock does;
                      GET /_scenarios/ID lists what arrived there.

Strictness beyond the documents: only `Api-Key: test-key` is accepted, `X-Pinecone-Api-Version`
must be sent and be 2025-10 (the documents' default would otherwise fill it in silently), unknown
query parameters are refused, and answers for operations whose examples are unusable come from the
fixtures below (themselves validated against the documents on the way out).
"""
import json
import os
import sys
import warnings

warnings.filterwarnings("ignore", message=".*httpx.*")
import connexion  # noqa: E402
import uvicorn  # noqa: E402
import yaml  # noqa: E402
from connexion.mock import MockResolver  # noqa: E402
from connexion.options import SwaggerUIOptions  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(HERE, "specs")
API_KEY = "test-key"
VERSION = "2025-10"

# Hand-written rpcStatus bodies (the data plane's error shape), by status.
RPC_ERRORS = {
    400: {"code": 3, "message": "Vector dimension 3 does not match the dimension of the index 384", "details": []},
    401: {"code": 16, "message": "Invalid API Key", "details": []},
    404: {"code": 5, "message": "Namespace not found", "details": []},
    429: {"code": 8, "message": "Request rate limit exceeded; slow down and retry", "details": []},
    500: {"code": 13, "message": "Internal error", "details": []},
    503: {"code": 14, "message": "Service unavailable; retry", "details": []},
}


def load(name):
    with open(os.path.join(SPECS, name)) as handle:
        spec = yaml.safe_load(handle)
    spec["components"]["securitySchemes"]["ApiKeyAuth"]["x-apikeyInfoFunc"] = "__main__.check_key"
    for path in spec["paths"].values():
        for operation in path.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("name") == "X-Pinecone-Api-Version":
                    parameter["schema"].pop("default", None)
                    parameter["schema"]["enum"] = [VERSION]
    return spec


def check_key(key, required_scopes=None):
    return {"sub": "test"} if key == API_KEY else None


# The control plane's indexes (name -> dimension), so describe after create finds what was made.
INDEXES = {"sibyl-test": 384}
PORT = 0


def index_model(name, dimension, ready=True):
    return {
        "name": name, "dimension": dimension, "metric": "cosine", "host": f"127.0.0.1:{PORT}",
        "spec": {"serverless": {"cloud": "aws", "region": "us-east-1",
                                "read_capacity": {"mode": "OnDemand", "status": {"state": "Ready"}}}},
        "status": {"ready": ready, "state": "Ready" if ready else "Initializing"},
        "vector_type": "dense", "deletion_protection": "disabled",
    }


def control_error(status, code, message):
    return {"error": {"code": code, "message": message}, "status": status}, status


def create_index(body=None, **_):
    if body["name"] in INDEXES:
        return control_error(409, "ALREADY_EXISTS", "Resource already exists.")
    INDEXES[body["name"]] = body["dimension"]
    return index_model(body["name"], body["dimension"], ready=False), 201


def describe_index(index_name=None, **_):
    if index_name not in INDEXES:
        return control_error(404, "NOT_FOUND", f"Resource {index_name} not found")
    return index_model(index_name, INDEXES[index_name]), 200


def list_indexes(**_):
    return {"indexes": [index_model(name, dimension) for name, dimension in sorted(INDEXES.items())]}, 200


def delete_index(index_name=None, **_):
    if INDEXES.pop(index_name, None) is None:
        return control_error(404, "NOT_FOUND", f"Resource {index_name} not found")
    return None, 202


def upsert(body=None, **_):
    return {"upsertedCount": len(body["vectors"])}, 200


def query(body=None, **_):
    # Two matches, whatever was asked: the mock checks the request's form, not search quality.
    matches = [{"id": "1", "score": 0.91, "metadata": {"document_id": 10}},
               {"id": "2", "score": 0.42, "metadata": {"document_id": 11}}]
    if body.get("includeValues"):
        for match in matches:
            match["values"] = [0.0] * len(body.get("vector") or [0.0])
    return {"matches": matches[: body["topK"]], "namespace": body.get("namespace", ""), "usage": {"readUnits": 6}}, 200


def fetch(ids=None, namespace="", **_):
    vectors = {id: {"id": id, "values": [0.1, 0.2, 0.3], "metadata": {"document_id": 10}} for id in ids}
    return {"vectors": vectors, "namespace": namespace, "usage": {"readUnits": 1}}, 200


def delete(body=None, **_):
    return {}, 200


def list_ids(namespace="", paginationToken=None, **_):
    # Three pages: 1 2 | 3 4 | 5.
    pages = {None: (["1", "2"], "page-2"), "page-2": (["3", "4"], "page-3"), "page-3": (["5"], None)}
    if paginationToken not in pages:
        return {"code": 3, "message": f"Invalid pagination token {paginationToken}", "details": []}, 400
    ids, following = pages[paginationToken]
    answer = {"vectors": [{"id": id} for id in ids], "namespace": namespace, "usage": {"readUnits": 1}}
    if following:
        answer["pagination"] = {"next": following}
    return answer, 200


def describe_stats(body=None, **_):
    return {"namespaces": {"docs": {"vectorCount": 3}, "notes": {"vectorCount": 2}},
            "dimension": 384, "indexFullness": 0.0, "totalVectorCount": 5, "metric": "cosine", "vectorType": "dense"}, 200


FIXTURES = {
    "create_index": create_index, "describe_index": describe_index, "list_indexes": list_indexes,
    "delete_index": delete_index, "upsertVectors": upsert, "queryVectors": query, "fetchVectors": fetch,
    "deleteVectors": delete, "listVectors": list_ids, "describeIndexStats": describe_stats,
}


class FixtureResolver(MockResolver):
    def resolve(self, operation):
        resolution = super().resolve(operation)
        handler = FIXTURES.get(resolution.operation_id)
        if handler is None:
            return resolution

        def answer(*args, **kwargs):
            return handler(**kwargs)

        return type(resolution)(answer, resolution.operation_id)


# Scenario id -> answers still to give, and what arrived.
SCENARIOS = {}


class Faults:
    """Scripted answers in front of the strict mock, for error and retry tests."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]
        if path.startswith("/_scenarios/"):
            return await self.scenario(path[len("/_scenarios/"):], scope, receive, send)
        if path.startswith("/_faults/"):
            name, _, rest = path[len("/_faults/"):].partition("/")
            scenario = SCENARIOS.setdefault(name, {"script": [], "log": []})
            scenario["log"].append({"method": scope["method"], "path": "/" + rest})
            if scenario["script"]:
                step = scenario["script"].pop(0)
                status = step["status"]
                body = step.get("body", RPC_ERRORS.get(status, {"code": 2, "message": "error", "details": []}))
                headers = [(b"content-type", b"application/json")]
                headers += [(k.lower().encode(), str(v).encode()) for k, v in step.get("headers", {}).items()]
                scenario["log"][-1]["status"] = status
                return await respond(send, status, json.dumps(body).encode(), headers)
            scope = dict(scope, path="/" + rest, raw_path=("/" + rest).encode())
        return await self.app(scope, receive, send)

    async def scenario(self, name, scope, receive, send):
        if scope["method"] == "PUT":
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            SCENARIOS[name] = {"script": json.loads(body or b"[]"), "log": []}
            return await respond(send, 204, b"", [])
        scenario = SCENARIOS.get(name, {"script": [], "log": []})
        answer = {"requests": scenario["log"], "remaining": len(scenario["script"])}
        return await respond(send, 200, json.dumps(answer).encode(), [(b"content-type", b"application/json")])


async def respond(send, status, body, headers):
    await send({"type": "http.response.start", "status": status, "headers": headers + [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def make_app():
    app = connexion.AsyncApp(__name__)
    for name, base_path in (("pinecone-db-data-2025-10.yaml", ""), ("pinecone-db-control-2025-10.yaml", "/control")):
        app.add_api(load(name), base_path=base_path, resolver=FixtureResolver(mock_all=True),
                    strict_validation=True, validate_responses=True,
                    swagger_ui_options=SwaggerUIOptions(swagger_ui=False, serve_spec=False))
    return Faults(app)


if __name__ == "__main__":
    PORT = int(sys.argv[1])
    # Idle connections are kept longer than a client's pool keeps them (AsyncHTTPClient: 60 s):
    # with uvicorn's 5 s, a test that waited on a busy machine reused a connection the mock had
    # just closed ("I/O on closed channel"), spending a retry its scripted statuses counted on.
    uvicorn.run(make_app(), host="127.0.0.1", port=PORT, log_level="warning", timeout_keep_alive=75)
