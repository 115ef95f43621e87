"""Request bodies are read only where a route takes one, and never past max_body_bytes:

- A body on a route that takes none (/metrics, the dashboard, GET, DELETE, cancel) is 413
  body_too_large with max_body_bytes 0, answered from the request head before a byte of the
  body is read, with or without a token; the connection is then closed, so a client that
  streams on finds it shut (once, a client without a token streamed gigabytes to /metrics).
- A chunked body that crosses max_body_bytes gets the documented 413 while it arrives, and
  the daemon stops reading it (it used to drop such a connection without a word).
The body limit is 64 KiB here."""
import json
import select
import socket
import time

from dtserver import run, started, unit_cube, validate

LIMIT = 65536


def parse(out):
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split(" ")[1]), headers, body


def read_reply(s, timeout=10):
    """Read one reply (head and Content-Length body) from s."""
    out, t0 = b"", time.time()
    s.settimeout(timeout)
    while time.time() - t0 < timeout:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
        if b"\r\n\r\n" in out:
            status, h, body = parse(out)
            if len(body) >= int(h.get("content-length", 0)):
                return status, h, body
    assert out, "no reply"
    return parse(out)


def check_413(status, h, body, max_body):
    assert status == 413, (status, body[:300])
    assert h["content-type"].startswith("application/json"), h
    doc = json.loads(body)
    validate(doc, {"$ref": "#/components/schemas/Error"}, "413")
    assert doc["error"]["code"] == "body_too_large" and doc["error"]["details"] == {"max_body_bytes": max_body}, doc
    return doc


def stream_until_refused(s, chunked, limit_bytes):
    """Send body data until the daemon stops taking it; the bytes sent."""
    block = b"x" * 65536
    data = (b"%x\r\n" % len(block) + block + b"\r\n") if chunked else block
    sent = 0
    s.settimeout(5)
    try:
        while sent < limit_bytes:
            s.sendall(data)
            sent += len(data)
    except OSError:
        return sent
    raise AssertionError(f"the daemon read {sent} bytes of a body it refused")


def no_body_routes(d, jid):
    tok = f"Authorization: Bearer {d.token}\r\n".encode()
    cases = [
        (b"GET /metrics", b"", b"Content-Length: 10000000000\r\n"),
        (b"GET /metrics", b"", b"Transfer-Encoding: chunked\r\n"),
        (b"GET /", b"", b"Content-Length: 10000000000\r\n"),
        (b"HEAD /", b"", b"Content-Length: 5\r\n"),
        (b"GET /index.html", b"", b"Transfer-Encoding: chunked\r\n"),
        (b"GET /v1/health", b"", b"Content-Length: 10000000000\r\n"),
        (b"GET /v1/jobs", tok, b"Transfer-Encoding: chunked\r\n"),
        (b"GET /v1/jobs/" + jid.encode(), tok, b"Content-Length: 10\r\n"),
        (b"DELETE /v1/jobs/" + jid.encode(), tok, b"Content-Length: 10000000000\r\n"),
        (b"POST /v1/jobs/" + jid.encode() + b"/cancel", tok, b"Content-Length: 2\r\n"),
    ]
    for line, auth, framing in cases:
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
        t0 = time.time()
        s.sendall(line + b" HTTP/1.1\r\nHost: x\r\n" + auth + framing + b"\r\n")
        if line.startswith(b"HEAD"):
            out = s.recv(65536)
            assert out.startswith(b"HTTP/1.1 413"), out[:200]
        else:
            status, h, body = read_reply(s)
            doc = check_413(status, h, body, 0)
            assert "takes no request body" in doc["error"]["message"], doc
            assert h.get("connection", "").lower() == "close", h
        assert time.time() - t0 < 3, "the refusal waited for the body"
        # The connection is closed: what the client streams on is not read.
        stream_until_refused(s, b"chunked" in framing, 256 << 20)
        s.close()
        assert d.request("GET", "/v1/health").status == 200
    assert d.request("GET", f"/v1/jobs/{jid}").json["state"] == "succeeded", "a refused request acted"
    # No body, or an empty one, is served as before.
    for framing in (b"", b"Content-Length: 0\r\n"):
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
        s.sendall(b"GET /v1/jobs HTTP/1.1\r\nHost: x\r\n" + tok + framing + b"Connection: close\r\n\r\n")
        assert read_reply(s)[0] == 200
        s.close()
    return len(cases)


def chunked_over_limit(d):
    """A chunked body that crosses max_body_bytes: 413 while it arrives, and no more read."""
    tok = f"Authorization: Bearer {d.token}\r\n".encode()
    for path in (b"/v1/jobs", b"/v1/meshes"):
        s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
        s.sendall(b"POST " + path + b" HTTP/1.1\r\nHost: x\r\n" + tok +
                  b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        block = b"%x\r\n" % 16384 + b" " * 16384 + b"\r\n"
        sent, t0 = 0, time.time()
        while not select.select([s], [], [], 0)[0]:
            # What the socket buffers hold counts as sent: megabytes on loopback.
            assert sent < 1024 * LIMIT and time.time() - t0 < 20, f"no reply after {sent} body bytes"
            try:
                s.sendall(block)
            except OSError:
                break
            sent += len(block)
        status, h, body = read_reply(s)
        check_413(status, h, body, LIMIT)
        assert h.get("connection", "").lower() == "close", h
        stream_until_refused(s, True, 256 << 20)
        s.close()
        assert d.request("GET", "/v1/health").status == 200
    # Within the limit a chunked body is taken as before.
    doc = json.dumps(unit_cube()).encode()
    s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
    s.sendall(b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n" + tok + b"Content-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + b"%x\r\n" % len(doc) + doc + b"\r\n0\r\n\r\n")
    status, _, body = read_reply(s)
    assert status == 201, body[:300]
    s.close()
    return json.loads(body)["id"]


def main(binary):
    with started(binary, {"DUCTILED_MAX_BODY_BYTES": str(LIMIT)}) as d:
        jid = d.request("POST", "/v1/jobs", unit_cube()).json["id"]
        d.wait_job(jid)
        n = no_body_routes(d, jid)
        d.wait_job(chunked_over_limit(d))
        # An announced length above the limit: 413 before the body, as before.
        r = d.request("POST", "/v1/jobs", b"{" + b" " * (LIMIT + 10) + b"}", {"Content-Type": "application/json"})
        assert r.status == 413 and r.json["error"]["details"] == {"max_body_bytes": LIMIT}, r
        assert d.request("GET", "/v1/health").json["status"] == "ok"
        print(f"{n} bodies refused on routes that take none; chunked bodies over the limit: 413")


if __name__ == "__main__":
    run(main)
