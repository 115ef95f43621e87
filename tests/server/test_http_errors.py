"""Every error reply is the API's JSON envelope, the ones libmicrohttpd makes by itself too
(server/http.h): a request it cannot parse gets its status (400, 413, 414, 431, 505) with
{"error": {code, message, details}}, Content-Type application/json, an X-Request-Id and one
header block, and the connection is closed. Framing that two parsers could read differently
(two different Content-Length values, Content-Length beside Transfer-Encoding) is 400, and
%00 in a path or query never cuts it short: the daemon does not act on the truncated path."""
import json
import socket

from dtserver import run, started, unit_cube, validate

LIMIT = 65536


def raw(d, data, timeout=10):
    """Send raw bytes, read until the daemon closes; (status or None, headers dict, body, raw)."""
    s = socket.create_connection(("127.0.0.1", d.port), timeout=timeout)
    try:
        s.sendall(data)
    except OSError:
        pass
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    if not out.startswith(b"HTTP/"):
        return None, {}, b"", out
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split(" ")[1]), headers, body, out


def expect_json_error(d, data, status, code, what):
    st, h, body, out = raw(d, data)
    assert st == status, (what, out[:400])
    assert h.get("content-type", "").startswith("application/json"), (what, out[:400])
    assert h.get("x-request-id"), (what, out[:400])
    assert int(h["content-length"]) == len(body), (what, "one header block, then the body", out[:600])
    assert h.get("connection", "").lower() == "close", (what, out[:400])
    doc = json.loads(body)
    validate(doc, {"$ref": "#/components/schemas/Error"}, what)
    assert doc["error"]["code"] == code and doc["error"]["message"], (what, doc)
    assert b"<html" not in out, (what, out[:400])
    return doc


def main(binary):
    with started(binary, {"DUCTILED_MAX_BODY_BYTES": str(LIMIT)}) as d:
        tok = f"Authorization: Bearer {d.token}\r\n".encode()
        jid = d.request("POST", "/v1/jobs", unit_cube()).json["id"]
        d.wait_job(jid)

        # What libmicrohttpd answers by itself: the envelope, not its HTML pages.
        lib = [
            (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400, "bad_request"),
            (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n", 400, "bad_request"),
            (b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n" + tok + b"Content-Length: 99999999999999999999999\r\n\r\n",
             413, "body_too_large"),
            (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200000 + b"\r\n\r\n", 431, "headers_too_large"),
            (b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
            (b"GET /v1/health HTTP/9.9\r\nHost: x\r\n\r\n", 505, "http_version_not_supported"),
            (b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n" + tok + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
             400, "bad_request"),
            (b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n" + tok + b"Transfer-Encoding: chunked\r\n\r\n"
             + b"f" * 40 + b"\r\n{}\r\n0\r\n\r\n", 413, "body_too_large"),
        ]
        for data, status, code in lib:
            doc = expect_json_error(d, data, status, code, data[:50])
            if status == 413:
                assert doc["error"]["details"] == {"max_body_bytes": LIMIT}, doc
            assert d.request("GET", "/v1/health").status == 200
        # A request line that is not HTTP at all gets no reply from libmicrohttpd (http.h).
        st, _, _, out = raw(d, b"HELLO\r\n\r\n")
        assert st is None and out == b"", out[:200]

        # Ambiguous framing: 400, and the connection is closed before the body is read.
        for data, what in [
            (b"POST /v1/meshes HTTP/1.1\r\nHost: x\r\n" + tok + b"Content-Type: application/json\r\n"
             b"Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}" + b" " * 38, "two Content-Length values"),
            (b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + tok + b"Content-Length: 0\r\nContent-Length: 5\r\n\r\nhello",
             "two Content-Length values"),
            (b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n" + tok + b"Content-Length: 5\r\n"
             b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "Content-Length with Transfer-Encoding"),
        ]:
            doc = expect_json_error(d, data, 400, "bad_request", what)
            assert "Content-Length" in doc["error"]["message"], doc
        meshes = d.request("GET", "/v1/meshes").json["items"]
        assert meshes == [], "a request with ambiguous framing created a mesh"
        # The same length twice is one length (RFC 9110 8.6): served.
        st, _, body, out = raw(d, b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" + tok +
                               b"Content-Length: 0\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        assert st == 200, out[:300]

        # %00 stays encoded: never the truncated path, never a truncated parameter.
        for method, path, status, code in [
            ("DELETE", f"/v1/jobs/{jid}%00/x", 404, "not_found"),
            ("GET", f"/v1/jobs/{jid}%00/results", 404, "not_found"),
            ("DELETE", f"/v1/jobs/{jid}%00", 404, "not_found"),
            ("GET", f"/v1/jobs/{jid}%00", 404, "not_found"),
            ("GET", "/v1/health%00.css", 404, "not_found"),
            ("GET", "/index.html%00", 404, "not_found"),
            ("GET", "/v1/jobs?limit=5%00", 400, "invalid_parameter"),
            ("GET", f"/v1/jobs/{jid}/events?after=0%00", 400, "invalid_parameter"),
        ]:
            data = f"{method} {path} HTTP/1.1\r\nHost: x\r\n".encode() + tok + b"Connection: close\r\n\r\n"
            doc = expect_json_error(d, data, status, code, path)
            assert "\\u0000" not in json.dumps(doc), doc
        assert d.request("GET", f"/v1/jobs/{jid}").json["state"] == "succeeded", "the job was acted on"
        # Other escapes decode as before: %2D is '-'.
        assert d.request("GET", f"/v1/jobs/{jid.replace('-', '%2D')}").status == 200

        assert d.request("GET", "/v1/health").json["status"] == "ok"
        print(f"{len(lib)} libmicrohttpd errors as JSON, 3 framing cases, 8 %00 cases")


if __name__ == "__main__":
    run(main)
