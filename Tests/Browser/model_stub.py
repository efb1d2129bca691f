"""A scriptable OpenAI-compatible chat server for the browser tests: it streams a set answer word
by word, slowly when asked (to press Stop), or fails with a 500 (to see the error and Retry)."""

import base64
import hashlib
import json
import struct
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def png(width: int = 64, height: int = 64, colour=(61, 90, 254)) -> bytes:
    """A plain PNG of one colour."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\0" + bytes(colour) * width for _ in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class ModelStub:
    def __init__(self):
        self.answer = "Hello from the stub."
        # What an unstreamed completion (a title, a reading for facts) answers.
        self.completion = "Stub title"
        self.delay = 0.0
        # Hold the streamed answer after this many words until `release` is set (None: no hold).
        self.hold_after = None
        self.release = threading.Event()
        self.fail_next = 0
        # {"name": …, "arguments": …}: call this tool when it is offered and no result is in yet;
        # once one is, answer with the result's words and its number (None: never call a tool).
        self.tool_call = None
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path.endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": "stub-model", "object": "model", "created": 0, "owned_by": "test"},
                                                     {"id": "stub-model-large", "object": "model", "created": 0, "owned_by": "test"}]})
                else:
                    self._json(404, {"error": {"message": "no such route", "type": "invalid_request_error"}})

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                # The provider check also sends audio (multipart): only JSON bodies are read.
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                stub.requests.append(body)
                if self.path.endswith("/embeddings"):
                    # A stand-in for OpenAI's embedder: eight numbers from each text's hash.
                    texts = body.get("input") if isinstance(body.get("input"), list) else [body.get("input", "")]
                    vectors = []
                    for text in texts:
                        digest = hashlib.sha256(str(text).encode()).digest()
                        vectors.append([(byte - 128) / 128 for byte in digest[:8]])
                    return self._json(200, {"object": "list", "model": body.get("model", "text-embedding-3-small"),
                                            "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
                                            "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)}})
                if self.path.endswith("/images/generations"):
                    image = base64.b64encode(png()).decode()
                    drawn = [{"b64_json": image, "revised_prompt": body.get("prompt")}] * int(body.get("n", 1))
                    return self._json(200, {"created": 0, "data": drawn})
                if not self.path.endswith("/chat/completions"):
                    return self._json(404, {"error": {"message": "no such route", "type": "invalid_request_error"}})
                if stub.fail_next > 0:
                    stub.fail_next -= 1
                    return self._json(500, {"error": {"message": "the stub model is down", "type": "server_error"}})
                if not body.get("stream"):
                    return self._json(200, {"id": "c", "object": "chat.completion", "created": 0, "model": "stub-model",
                                            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": stub.completion}}],
                                            "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}})
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                answer = stub.answer
                if stub.tool_call is not None:
                    results = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "tool"]
                    offered = [t.get("function", {}).get("name") for t in body.get("tools", [])]
                    if results:
                        number, _, words = results[-1].partition("] ")
                        answer = f"According to the inventory, {words.rstrip('. ')} {number}]."
                    elif stub.tool_call["name"] in offered:
                        return self._tool_call(stub.tool_call)
                try:
                    for index, word in enumerate(answer.split(" ")):
                        piece = word if index == 0 else " " + word
                        self._chunk({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "stub-model",
                                     "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
                        time.sleep(stub.delay)
                        if stub.hold_after is not None and index + 1 == stub.hold_after:
                            stub.release.wait(timeout=300)
                    self._chunk({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "stub-model",
                                 "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
                    self._raw(b"data: [DONE]\n\n")
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _tool_call(self, call):
                base = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "stub-model"}
                self._chunk({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
                    {"index": 0, "id": "call_1", "type": "function", "function": {"name": call["name"], "arguments": call["arguments"]}}]},
                    "finish_reason": None}]})
                self._chunk({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
                self._raw(b"data: [DONE]\n\n")
                self.wfile.write(b"0\r\n\r\n")

            def _chunk(self, value):
                self._raw(b"data: " + json.dumps(value).encode() + b"\n\n")

            def _raw(self, data: bytes):
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()

            def _json(self, status, value):
                data = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
