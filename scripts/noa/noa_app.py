#!/usr/bin/env python3
"""Sends a request to a Noa "Custom Server" byte for byte as Brilliant Labs' Noa app (Flutter) does, so
Sibyl's server can be tested against the app's real wire format. Python 3.11, standard library only.

    python3 scripts/noa/noa_app.py --self-test
    python3 scripts/noa/noa_app.py --endpoint URL --header-name Authorization --header-value "Bearer X" \
        --audio-raw FILE [--image FILE.jpg] [--history JSON] [--location TEXT]

Behaviour read from (not copied): brilliantlabsAR/noa-flutter lib/noa_api.dart (getMessage, NoaMessage.toJson),
lib/util/bytes_to_wav.dart, lib/models/app_logic_model.dart; dart-lang/http at http-v1.2.2, the version in the
app's pubspec.lock (pkgs/http/lib/src/multipart_request.dart, multipart_file.dart, boundary_characters.dart,
base_request.dart, io_client.dart, utils.dart); dart-lang/sdk sdk/lib/_http/http_impl.dart, http_headers.dart,
sdk/lib/_internal/vm_shared/lib/collection_patch.dart, runtime/vm/hash.h and object.cc (String::Hash),
sdk/lib/core/date_time.dart, sdk/lib/convert/json.dart.
"""
import argparse, base64, datetime, gzip, http.client, http.server, json, re, secrets, struct, sys, threading
import urllib.parse
from decimal import Decimal
from pathlib import Path

# http_impl.dart _getHttpVersion: 'Dart/<major.minor> (dart:io)' of the Dart in the Flutter that built the app.
# Not established: pubspec.lock needs Dart >= 3.7 and the last commit is of May 2025 (Flutter 3.29 = Dart 3.7),
# so 3.7 is assumed; pass dart_version / --dart-version for another build.
DART_VERSION = "3.7"
# boundary_characters.dart (+ _ - . 0-9 A-Z a-z); multipart_request.dart: the prefix plus random ones, 70 in all.
BOUNDARY_CHARS = "+_-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
BOUNDARY_PREFIX, BOUNDARY_LENGTH = "dart-http-boundary-", 70
_SEPARATORS = set('()<>@,;:\\"/[]?={} \t')  # http_parser.dart _isTokenChar: 33..126 less these
_LITERALS = {None: "null", True: "true", False: "false"}


def bytes_to_wav(signed8: bytes, bit_depth: int = 8, sample_rate: int = 8000) -> bytes:
    """bytes_to_wav.dart: a 44-byte RIFF header, fields written through asUint32List/asUint16List (the phone's
    native order: little-endian on ARM), then offsetPcm: each byte b becomes (b + 128) % 256."""
    n = len(signed8)
    return (b"RIFF" + struct.pack("<I", (36 + n) & 0xFFFFFFFF) + b"WAVEfmt " + struct.pack(
        "<IHHIIHH", 16, 1, 1, sample_rate, sample_rate * bit_depth // 8, bit_depth // 8, bit_depth)
        + b"data" + struct.pack("<I", n) + bytes((b + 128) % 256 for b in signed8))


def dart_datetime_string(dt: datetime.datetime) -> str:
    """date_time.dart toString() of a local DateTime: 'yyyy-MM-dd HH:mm:ss.mmm', then three more digits for
    the microseconds only when they are not 0; no 'Z' (UTC only)."""
    ms, us = divmod(dt.microsecond, 1000)
    return (f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d} {dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}.{ms:03d}"
            + (f"{us:03d}" if us else ""))


def _dart_double(x: float) -> str:
    """double.toString(): shortest digits, '.0' on whole values, exponent form below 1e-6 and from 1e21."""
    if x != x or abs(x) == float("inf"):
        raise ValueError("jsonEncode refuses NaN and Infinity")
    if x == int(x) and abs(x) < 1e21:
        return ("-" if str(x)[0] == "-" else "") + f"{abs(int(x))}.0"
    if 1e-6 <= abs(x) < 1e21:
        return format(Decimal(repr(x)), "f")
    mantissa, exp = repr(x).split("e")
    return f"{mantissa}e{int(exp):+d}"


def _json_string(s: str) -> str:
    """json.dart writeStringContent over UTF-16 code units (Dart strings): '"' and '\\' get a backslash, control
    characters become \\b \\t \\n \\f \\r or \\u00xx (lower-case hex), lone surrogates \\udxxx; all else as is."""
    raw = s.encode("utf-16-le", "surrogatepass")
    units, out = struct.unpack(f"<{len(raw) // 2}H", raw), []
    for i, c in enumerate(units):
        lone = ((0xD800 <= c < 0xDC00 and not (i + 1 < len(units) and 0xDC00 <= units[i + 1] < 0xE000)) or
                (0xDC00 <= c < 0xE000 and not (i > 0 and 0xD800 <= units[i - 1] < 0xDC00)))
        if c < 32 or lone:
            out += map(ord, "\\" + {8: "b", 9: "t", 10: "n", 12: "f", 13: "r"}.get(c, f"u{c:04x}"))
        else:
            out += [0x5C, c] if c in (0x22, 0x5C) else [c]
    return struct.pack(f"<{len(out)}H", *out).decode("utf-16-le", "surrogatepass")


def dart_json_encode(value) -> str:
    """jsonEncode: no spaces, map entries in insertion order, strings as _json_string writes them."""
    if value is None or isinstance(value, bool):
        return _LITERALS[value]
    if isinstance(value, (str, int, float)):
        return ('"' + _json_string(value) + '"' if isinstance(value, str)
                else str(value) if isinstance(value, int) else _dart_double(value))
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(dart_json_encode, value)) + "]"
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return "{" + ",".join(f'"{_json_string(k)}":{dart_json_encode(v)}' for k, v in value.items()) + "}"
    raise TypeError(f"jsonEncode cannot encode {value!r}")


def _dart_utf8(s: str) -> bytes:  # utf8.encode: a lone surrogate becomes U+FFFD
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8")


def _dart_to_string(v) -> str:  # Object.toString() of a jsonDecode'd value: null, [a, b], {k: v}, 2.0
    if v is None or isinstance(v, bool):
        return _LITERALS[v]
    if isinstance(v, list):
        return "[" + ", ".join(map(_dart_to_string, v)) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_dart_to_string(x)}" for k, x in v.items()) + "}"
    return _dart_double(v) if isinstance(v, float) else str(v)


def _browser_encode(value: str) -> str:  # multipart_request.dart: newlines -> %0D%0A, '"' -> %22, nothing else
    return re.sub(r"\r\n|\r|\n", "%0D%0A", value).replace('"', "%22")


def _vm_string_hash(s: str) -> int:
    """String.hashCode on the Dart VM (object.cc String::Hash): hash.h CombineHashes over each code point from 0,
    then FinalizeHash to 30 bits, 0 becoming 1."""
    h = 0
    for ch in s:  # uint32 arithmetic: h += c; h += h << 10; h ^= h >> 6
        h = (h + ord(ch)) * 1025 & 0xFFFFFFFF
        h ^= h >> 6
    h = h * 9 & 0xFFFFFFFF  # h += h << 3; h ^= h >> 11; h += h << 15
    h = (h ^ (h >> 11)) * 32769 & 0xFFFFFFFF
    return (h & 0x3FFFFFFF) or 1


class _VmHashMap:
    """The VM HashMap (collection_patch.dart _HashMap) that _HttpHeaders keeps its headers in and _build walks:
    8 buckets, index hash & (buckets - 1), a new key at the head of its bucket's chain, doubled when more than
    3/4 full (re-putting old entries bucket by bucket); walked bucket by bucket, each chain from its head."""
    def __init__(self):
        self.buckets = [[] for _ in range(8)]

    def _chain(self, key):
        return self.buckets[_vm_string_hash(key) & (len(self.buckets) - 1)]

    def put(self, key, value):
        chain = self._chain(key)
        for entry in chain:
            if entry[0] == key:
                entry[1] = value
                return
        chain.insert(0, [key, value])
        if sum(map(len, self.buckets)) * 4 > len(self.buckets) * 3:
            old, self.buckets = self.buckets, [[] for _ in range(len(self.buckets) * 2)]
            for entry in (e for chain in old for e in chain):
                self._chain(entry[0]).insert(0, entry)

    def remove(self, key):
        chain = self._chain(key)
        chain[:] = [e for e in chain if e[0] != key]

    def items(self):
        return [(k, v) for chain in self.buckets for k, v in chain]


class NoaApiServerError(Exception):
    """noa_api.dart NoaApiServerException: getMessage throws it on any status but 200, with the reason phrase."""
    def __init__(self, status: int, reason: str):
        super().__init__(f"NoaApiServerException: {status}: {reason}")
        self.status, self.reason = status, reason


class NoaAppResponse:
    def __init__(self, status: int, reason: str, headers: list, raw_body: bytes):
        self.status, self.reason, self.headers, self.raw_body = status, reason, headers, raw_body
        # http_impl.dart _HttpClientResponse: autoUncompress gunzips when content-encoding is exactly "gzip".
        gzipped = any(k.lower() == "content-encoding" and v == "gzip" for k, v in headers)
        self.body = gzip.decompress(raw_body) if gzipped else raw_body

    def parsed(self) -> dict:
        """What getMessage reads on a 200, failing where the app would; NoaApiServerError on any other status."""
        if self.status != 200:
            raise NoaApiServerError(self.status, self.reason)
        def refuse(constant):  # Dart's jsonDecode has no NaN / Infinity
            raise ValueError(f"jsonDecode rejects {constant}")
        body = json.loads(self.body.decode("utf-8"), parse_constant=refuse)  # jsonDecode(utf8.decode(bytes))
        debug = body.get("debug") if isinstance(body, dict) else None
        if not isinstance(debug, dict):  # body["debug"]['topic_changed'] throws on null or a non-map
            raise TypeError(f'body["debug"] is {debug!r}: the app\'s body["debug"]["topic_changed"] throws')
        topic = debug.get("topic_changed")  # ?? false
        if not isinstance(topic, (bool, type(None))):
            raise TypeError(f"topic_changed is {topic!r}: NoaMessage(topicChanged:) takes a bool")

        def b64(key):  # base64.decode: standard or URL-safe alphabet, padding needed, no whitespace
            v = body.get(key)
            if not isinstance(v, (str, type(None))):
                raise TypeError(f"{key} is {v!r}: base64.decode takes a String")
            return None if v is None else base64.b64decode(v.replace("-", "+").replace("_", "/"), validate=True)
        return {"user_prompt": _dart_to_string(body.get("user_prompt")).replace("\u2014", "-"),
                "message": _dart_to_string(body.get("message")).replace("\u2014", "-"),
                "topic_changed": bool(topic), "image": b64("image"), "audio": b64("audio")}


class NoaAppRequest:
    """The request getMessage (noa_api.dart) builds with isCustomServerEnabled = true."""
    def __init__(self, endpoint: str, header_name: str, header_value: str, audio_signed8: bytes,
                 image_jpeg: bytes | None, history: list[dict], location: str = "",
                 time: datetime.datetime | None = None, boundary: str | None = None, dart_version: str = DART_VERSION):
        self.endpoint, self.url = endpoint, urllib.parse.urlsplit(endpoint)
        if self.url.scheme not in ("http", "https") or not self.url.hostname:
            raise ValueError(f"{endpoint!r}: dart:io's HttpClient takes http or https URLs with a host")
        # The app's "API Header Key" and "API Header Value" end as {key: value}: app_logic_model.dart passes
        # (apiHeader, apiToken) into getMessage's (apiToken, apiHeader) parameters, and getMessage swaps them back.
        if not header_name or any(not 33 <= ord(c) <= 126 or c in _SEPARATORS for c in header_name):
            raise ValueError(f"header name {header_name!r}: dart:io throws FormatException (empty: sends ': value')")
        if any(not (32 <= ord(c) <= 127 or c == "\t") for c in header_value):
            raise ValueError(f"header value {header_value!r}: dart:io throws FormatException")
        if header_name.lower() in ("content-length", "transfer-encoding"):
            raise ValueError(f"{header_name}: the app would send a broken request")
        self.header_name, self.header_value, self.dart_version = header_name, header_value, dart_version
        self.boundary = boundary or BOUNDARY_PREFIX + "".join(
            secrets.choice(BOUNDARY_CHARS) for _ in range(BOUNDARY_LENGTH - len(BOUNDARY_PREFIX)))
        if len(self.boundary) != BOUNDARY_LENGTH or not set(self.boundary) <= set(BOUNDARY_CHARS):
            raise ValueError("package:http boundaries are 70 characters of boundary_characters.dart")
        # Fields in insertion order (a Dart map literal is a LinkedHashMap): messages (jsonEncode of the history,
        # NoaMessage.toJson giving role then content), location, time (DateTime.now().toString()).
        messages = dart_json_encode([{"role": m["role"], "content": m["content"]} for m in history])
        self.fields = [("messages", messages), ("location", location),
                       ("time", dart_datetime_string(time or datetime.datetime.now()))]
        # Files: audio, then image, both MultipartFile.fromBytes without a contentType. The app re-encodes the photo
        # (encodeJpg(copyRotate(decodeJpg(image)!, angle: 0)), package:image's encoder, not reproducible here), so
        # the given JPEG goes as it is. A photo that does not decode has no part: here one that is None, empty or
        # lacks the JPEG start marker FF D8 (an approximation of decodeJpg returning null).
        self.files = [("audio", "audio.wav", bytes_to_wav(audio_signed8, 8, 8000))]
        if image_jpeg and bytes(image_jpeg[:2]) == b"\xff\xd8":
            self.files.append(("image", "image.jpg", bytes(image_jpeg)))

    def body(self) -> bytes:
        """multipart_request.dart _finalize: each part '--boundary\\r\\n', its headers, '\\r\\n\\r\\n', the content,
        '\\r\\n'; fields then files; '--boundary--\\r\\n' to close. Part header names are lower-case."""
        out, separator = bytearray(), f"--{self.boundary}\r\n".encode()
        for name, value in self.fields:
            head = f'content-disposition: form-data; name="{_browser_encode(name)}"'
            if not (value and value.isascii()):  # utils.dart isPlainAscii is ^[\x00-\x7F]+$, so "" is not
                head += "\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-transfer-encoding: binary"
            out += separator + _dart_utf8(head + "\r\n\r\n") + _dart_utf8(value) + b"\r\n"
        for name, filename, data in self.files:  # MultipartFile's default MediaType('application', 'octet-stream')
            out += separator + _dart_utf8(
                f'content-type: application/octet-stream\r\ncontent-disposition: form-data; name='
                f'"{_browser_encode(name)}"; filename="{_browser_encode(filename)}"\r\n\r\n') + data + b"\r\n"
        return bytes(out + f"--{self.boundary}--\r\n".encode())

    def _ports(self) -> tuple[int, int]:  # (the URL's port, the scheme's default)
        default = 443 if self.url.scheme == "https" else 80
        return self.url.port or default, default

    def _target(self) -> str:
        """_HttpClientRequest._requestUri: the path ('/' when empty), then '?query' when the URI has a query.
        Assumed: the URL is already in the form Uri.parse normalises to (percent-escapes, dot segments)."""
        query = "?" + self.url.query if "?" in self.endpoint.split("#")[0] else ""
        return (self.url.path or "/") + query

    def request_line(self) -> str:  # _HttpClientRequest._writeHeader: method, SP, target, SP, HTTP/1.1
        return f"POST {self._target()} HTTP/1.1"

    def headers(self) -> list[tuple[str, str]]:
        """Every header line in the order dart:io writes them. _HttpHeaders._build walks its VM HashMap, so the
        order follows the names' hashes and the history of puts and removes, which this replays."""
        host, (port, default) = self.url.hostname, self._ports()  # Uri.parse lower-cases the host
        host = f"[{host}]" if ":" in host else host
        m = _VmHashMap()
        m.put("transfer-encoding", "chunked")  # _HttpClientRequest(): a POST starts chunked
        m.put("host", host if port == default else f"{host}:{port}")  # _HttpClientConnection.send: host and port,
        m.put("accept-encoding", "gzip")  # then add accept-encoding and user-agent
        m.put("user-agent", f"Dart/{self.dart_version} (dart:io)")
        if "@" in self.url.netloc:  # ...and, for user info in the URL, set authorization to Basic base64(userInfo)
            m.put("authorization", "Basic " + base64.b64encode(self.url.netloc.rpartition("@")[0].encode()).decode())
        m.remove("transfer-encoding")  # IOClient: ioRequest.contentLength = N turns chunked off and sets
        m.put("content-length", str(len(self.body())))  # content-length; persistentConnection adds nothing
        # Then IOClient calls headers.set (lower-cases the name, removes it, puts it) for each entry of package:http's
        # case-insensitive LinkedHashMap: the user's header (headers.addAll), then content-type from
        # MultipartRequest.finalize, which overwrites in place the value of a user header named content-type.
        content_type = f"multipart/form-data; boundary={self.boundary}"
        entries = [(self.header_name, self.header_value), ("content-type", content_type)]
        if self.header_name.lower() == "content-type":
            entries = [(self.header_name, content_type)]
        for name, value in entries:
            m.remove(name.lower())
            m.put(name.lower(), value)
        return m.items()

    def wire_bytes(self) -> bytes:
        head = "\r\n".join([self.request_line()] + [f"{k}: {v}" for k, v in self.headers()])
        return (head + "\r\n\r\n").encode("latin-1") + self.body()

    def send(self, timeout: float = 300) -> NoaAppResponse:
        """Sends request_line(), headers() and body() as they are: with skip_host and skip_accept_encoding
        http.client adds no header of its own. Not reproduced: dart:io follows a 303 with a GET; this returns it."""
        cls = http.client.HTTPSConnection if self.url.scheme == "https" else http.client.HTTPConnection
        conn = cls(self.url.hostname, self._ports()[0], timeout=timeout)
        try:
            conn.putrequest("POST", self._target(), skip_host=True, skip_accept_encoding=True)
            for name, value in self.headers():
                conn.putheader(name, value)
            conn.endheaders(self.body())
            resp = conn.getresponse()
            return NoaAppResponse(resp.status, resp.reason, resp.getheaders(), resp.read())
        finally:
            conn.close()


def _self_test() -> None:
    """Checks against values worked out by hand from the Dart sources, then a round trip through http.server."""
    passed = []
    def check(name, got, want):
        if got != want:
            raise AssertionError(f"{name}:\n  got  {got!r}\n  want {want!r}")
        passed.append(name)
    # bytes_to_wav.dart for samples 0, 127, -128: RIFF, 36+3, WAVE, 'fmt ', 16, PCM 1, mono 1, 8000 Hz, 8000 B/s,
    # block 1, 8 bits, data, 3; then each byte + 128 mod 256.
    fmt = b"WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x40\x1f\x00\x00\x01\x00\x08\x00data"
    check("wav", bytes_to_wav(b"\x00\x7f\x80"), b"RIFF\x27\x00\x00\x00" + fmt + b"\x03\x00\x00\x00\x80\xff\x00")
    check("offset", bytes_to_wav(b"\x01\xfe\x7e")[44:], b"\x81\x7e\xfe")
    check("datetime", dart_datetime_string(datetime.datetime(2026, 11, 27, 18, 30, 5, 123456)), "2026-11-27 18:30:05.123456")
    check("datetime ms", dart_datetime_string(datetime.datetime(2026, 1, 2, 3, 4, 5, 7000)), "2026-01-02 03:04:05.007")
    check("json", dart_json_encode([{"role": "user", "content": 'Caf\u00e9 "x"\n'}, {"role": "assistant",
                                    "content": "a\\/\x01\U0001F600\ud800"}]), '[{"role":"user","content":"Caf\u00e9 \\"x\\"\\n"},'
          '{"role":"assistant","content":"a\\\\/\\u0001\U0001F600\\ud800"}]')
    check("json numbers", dart_json_encode([1, 2.0, 0.5, 1e21, 1e-7, None, True]), "[1,2.0,0.5,1e+21,1e-7,null,true]")
    b = "dart-http-boundary-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO"
    req = NoaAppRequest("http://Example.COM:8080/noa?x=1", "Authorization", "Bearer X", b"\x00\x01", b"\xff\xd8\xff\xd9",
                        [{"content": "hi", "role": "user"}], time=datetime.datetime(2026, 11, 27, 18, 30, 5, 123456), boundary=b)
    want = (f'--{b}\r\ncontent-disposition: form-data; name="messages"\r\n\r\n[{{"role":"user","content":"hi"}}]\r\n'
            f'--{b}\r\ncontent-disposition: form-data; name="location"\r\ncontent-type: text/plain; charset=utf-8\r\n'
            f'content-transfer-encoding: binary\r\n\r\n\r\n'
            f'--{b}\r\ncontent-disposition: form-data; name="time"\r\n\r\n2026-11-27 18:30:05.123456\r\n'
            f'--{b}\r\ncontent-type: application/octet-stream\r\n'
            f'content-disposition: form-data; name="audio"; filename="audio.wav"\r\n\r\n').encode() \
        + b"RIFF\x26\x00\x00\x00" + fmt + b"\x02\x00\x00\x00\x80\x81\r\n" \
        + (f'--{b}\r\ncontent-type: application/octet-stream\r\n'
           f'content-disposition: form-data; name="image"; filename="image.jpg"\r\n\r\n').encode() \
        + b"\xff\xd8\xff\xd9\r\n" + f"--{b}--\r\n".encode()
    check("multipart body", req.body(), want)
    check("request line", req.request_line(), "POST /noa?x=1 HTTP/1.1")
    # The first five keep the order of a captured dart:io request (user-agent, content-type, accept-encoding,
    # content-length, host); authorization shares host's bucket (7) and, put later, heads its chain.
    check("headers", req.headers(), [("user-agent", "Dart/3.7 (dart:io)"), ("content-type", "multipart/form-data; boundary=" + b),
                                     ("accept-encoding", "gzip"), ("content-length", str(len(want))),
                                     ("authorization", "Bearer X"), ("host", "example.com:8080")])
    check("headers x-api-key", [k for k, _ in NoaAppRequest("https://h/", "X-Api-Key", "k", b"", None, []).headers()],
          ["user-agent", "content-type", "x-api-key", "accept-encoding", "content-length", "host"])
    check("no image part", b'name="image"' in NoaAppRequest("http://h", "A", "b", b"", b"", []).body(), False)
    check("topic_changed ?? false", NoaAppResponse(200, "OK", [], b'{"debug":{},"message":"a\xe2\x80\x94b"}').parsed(),
          {"user_prompt": "null", "message": "a-b", "topic_changed": False, "image": None, "audio": None})
    try:
        NoaAppResponse(200, "OK", [], b'{"user_prompt":"a","message":"b"}').parsed()
    except TypeError:
        passed.append("missing debug raises")
    else:
        raise AssertionError("a response without debug must raise")

    seen = {}
    class Handler(http.server.BaseHTTPRequestHandler):  # records what arrives, answers as a custom server would
        def do_POST(self):
            seen.update(line=self.requestline, headers=list(self.headers.items()),
                        body=self.rfile.read(int(self.headers["content-length"])))
            reply = b"" if self.path == "/busy" else gzip.compress(json.dumps({
                "user_prompt": "what is this", "message": "a cup \u2014 tea", "debug": {"topic_changed": True},
                "image": base64.b64encode(b"PNG").decode(), "audio": base64.b64encode(b"MP3!").decode()}).encode())
            self.send_response(*((503, "Busy Right Now") if self.path == "/busy" else (200,)))
            self.send_header("content-encoding", "gzip")
            self.send_header("content-length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        req = NoaAppRequest(base + "/noa", "X-Sibyl-Token", "t0k", b"\x05\x06", b"\xff\xd8\xff\xd9",
                            [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}], location="Caf\u00e9")
        resp = req.send(timeout=10)
        check("echo request line", seen["line"], req.request_line())
        check("echo headers", seen["headers"], req.headers())
        check("echo body", seen["body"], req.body())
        check("echo parsed", resp.parsed(), {"user_prompt": "what is this", "message": "a cup - tea",
                                             "topic_changed": True, "image": b"PNG", "audio": b"MP3!"})
        try:
            NoaAppRequest(base + "/busy", "X-Sibyl-Token", "t0k", b"", None, []).send(timeout=10).parsed()
            raise AssertionError("a 503 must raise")
        except NoaApiServerError as e:
            check("non-200 raises", (e.status, e.reason), (503, "Busy Right Now"))
    finally:
        server.shutdown()
        server.server_close()
    print(f"self-test: all {len(passed)} checks passed")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--self-test", action="store_true", help="check against hand-derived values and a local echo")
    for flag, default, help_text in [
            ("--endpoint", None, "the custom server's URL"), ("--header-name", "Authorization", "API Header Key"),
            ("--header-value", "", "API Header Value"), ("--audio-raw", None, "signed 8-bit 8 kHz mono PCM"),
            ("--image", None, "a JPEG"), ("--history", "[]", 'JSON: [{"role": "user"|"assistant", "content": ...}]'),
            ("--location", "", "Location.getAddress()"), ("--dart-version", DART_VERSION, "for the User-Agent")]:
        ap.add_argument(flag, default=default, help=help_text)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    if args.self_test:
        _self_test()
        return 0
    if not args.endpoint or not args.audio_raw:
        ap.error("--endpoint and --audio-raw are needed (or --self-test)")
    read = lambda path: Path(path).read_bytes() if path else None
    resp = NoaAppRequest(args.endpoint, args.header_name, args.header_value, read(args.audio_raw), read(args.image),
                         json.loads(args.history), location=args.location, dart_version=args.dart_version
                         ).send(timeout=args.timeout)
    print(resp.status, resp.reason)
    try:
        parsed = resp.parsed()
    except NoaApiServerError as e:
        print(e)
        return 1
    parsed.update({k: f"<{len(parsed[k])} bytes>" for k in ("image", "audio") if parsed[k] is not None})
    print(json.dumps(parsed, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
