"""Connection limits and request deadlines (server/conn_limits.h), without a token:

- Idle and slowloris sockets (a byte every half second: libmicrohttpd's idle timeout never
  fires) from one address beyond max_connections_per_client do not take the server: a client
  on another address keeps getting answers throughout, and every one of those sockets is
  closed by the daemon within header_timeout.
- A request on a connection beyond the limits gets 503 too_many_connections (the JSON
  envelope, Retry-After) instead of a reset; one that sends nothing is closed after a second.
- With max_connections taken by idle sockets from many addresses, a new client gets 503 (not a
  reset) while an established keep-alive client is still served, and is served again once
  the idle sockets are closed.
- A request body that trickles in (below body_min_rate) is closed too.
Limits here: 24 connections, 6 per address, header_timeout 3 s, body_min_rate 1000 bytes/s."""
import http.client
import json
import socket
import threading
import time

from dtserver import run, started, unit_cube, validate

PER_CLIENT, MAX, HEADER_TIMEOUT = 6, 24, 3


def connect(d, src, timeout=10):
    return socket.create_connection(("127.0.0.1", d.port), timeout=timeout, source_address=(src, 0))


def closed_by_server(s, wait):
    """Whether the daemon closes s within wait seconds (what it sent before is skipped)."""
    s.settimeout(wait)
    try:
        while True:
            if not s.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def reply(s, timeout=10):
    s.settimeout(timeout)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except ConnectionResetError:
        pass
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split(" ")[1]) if out.startswith(b"HTTP/") else None, headers, body


class Poller(threading.Thread):
    """The normal client: polls a job's status every 20 ms on a keep-alive connection, and, while
    fresh is set, on a new connection every fifth time; records every failure."""

    def __init__(self, d, jid):
        super().__init__(daemon=True)
        self.d, self.jid = d, jid
        self.fresh, self.stop = True, False
        self.ok, self.failures, self.worst = 0, [], 0.0

    def get(self, c):
        t0 = time.time()
        c.request("GET", f"/v1/jobs/{self.jid}", headers={"Authorization": "Bearer " + self.d.token})
        r = c.getresponse()
        body = r.read()
        self.worst = max(self.worst, time.time() - t0)
        if r.status != 200 or json.loads(body)["id"] != self.jid:
            self.failures.append((r.status, body[:200]))
        else:
            self.ok += 1

    def run(self):
        keep = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=5)
        i = 0
        while not self.stop:
            try:
                self.get(keep)
                if self.fresh and i % 5 == 0:
                    c = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=5)
                    self.get(c)
                    c.close()
            except (OSError, http.client.HTTPException) as e:
                self.failures.append(repr(e))
                keep.close()
                keep = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=5)
            i += 1
            time.sleep(0.02)
        keep.close()


def one_address(d, poller):
    """30 idle and slowloris sockets from 127.0.0.2: all closed within header_timeout, and the
    poller never fails meanwhile."""
    socks, stop = [], threading.Event()
    for i in range(30):
        try:
            s = connect(d, "127.0.0.2")
        except OSError:
            continue
        socks.append(s)

    def trickle():  # a request line, one byte at a time
        line = b"GET /v1/health HTTP/1.1\r\nX-Slow: " + b"x" * 1000
        i = 0
        while not stop.is_set():
            for s in socks[1::2]:
                try:
                    s.send(line[i:i + 1])
                except OSError:
                    pass
            i += 1
            time.sleep(0.5)

    t = threading.Thread(target=trickle, daemon=True)
    t.start()
    t0 = time.time()
    for s in socks:
        assert closed_by_server(s, HEADER_TIMEOUT + 3 - (time.time() - t0)), \
            f"a socket of 127.0.0.2 still open after {time.time() - t0:.1f} s"
    took = time.time() - t0
    stop.set()
    t.join()
    for s in socks:
        s.close()
    assert not poller.failures, poller.failures[:5]
    return len(socks), took


def over_limit_reply(d):
    """On one address's connection beyond the limit: a request gets 503 too_many_connections,
    a silent one is closed after a second, long before header_timeout."""
    held = [connect(d, "127.0.0.3") for _ in range(PER_CLIENT)]
    time.sleep(0.2)
    s = connect(d, "127.0.0.3")
    s.sendall(f"GET /v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {d.token}\r\n\r\n".encode())
    status, h, body = reply(s)
    s.close()
    assert status == 503, (status, body[:300])
    doc = json.loads(body)
    validate(doc, {"$ref": "#/components/schemas/Error"}, "503")
    assert doc["error"]["code"] == "too_many_connections", doc
    assert doc["error"]["details"] == {"max_connections": MAX, "max_connections_per_client": PER_CLIENT}, doc
    assert h.get("retry-after") == "1" and h["content-type"].startswith("application/json"), h
    silent = connect(d, "127.0.0.3")
    t0 = time.time()
    assert closed_by_server(silent, HEADER_TIMEOUT), "a silent connection over the limit stayed open"
    assert time.time() - t0 < HEADER_TIMEOUT - 0.5, f"closed after {time.time() - t0:.1f} s"
    silent.close()
    # The connections within the limit stay until header_timeout.
    assert not closed_by_server(held[0], 0.2)
    for s in held:
        s.close()


def all_connections(d, poller):
    """Idle sockets from six addresses take max_connections: a new client hears 503, the poller's
    keep-alive connection is still served, and new clients are served once they are gone."""
    poller.fresh = False
    time.sleep(0.1)
    held = []
    for a in range(10, 16):
        for _ in range(5):
            held.append(connect(d, f"127.0.0.{a}"))
    time.sleep(0.3)
    c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=5)
    c.request("GET", "/v1/health", headers={"Authorization": "Bearer " + d.token})
    r = c.getresponse()
    body = r.read()
    c.close()
    assert r.status == 503 and json.loads(body)["error"]["code"] == "too_many_connections", (r.status, body[:300])
    n_ok = poller.ok
    t0 = time.time()
    while d.request("GET", "/v1/health", check=False).status != 200:
        assert time.time() - t0 < HEADER_TIMEOUT + 3, "still refused after the idle sockets' deadline"
        time.sleep(0.2)
    assert poller.ok > n_ok, "the keep-alive client was not served meanwhile"
    for s in held:
        assert closed_by_server(s, 1), "an idle socket outlived header_timeout"
        s.close()
    poller.fresh = True
    assert not poller.failures, poller.failures[:5]


def slow_body(d):
    """A body below body_min_rate: closed once it falls behind (header_timeout, then 1000 bytes/s)."""
    s = connect(d, "127.0.0.4")
    s.sendall(f"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {d.token}\r\n"
              "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{".encode())
    t0 = time.time()
    closed = False
    while time.time() - t0 < HEADER_TIMEOUT + 5:
        try:
            s.send(b" " * 16)
        except OSError:
            closed = True
            break
        if closed_by_server(s, 0.5):
            closed = True
            break
    took = time.time() - t0
    s.close()
    assert closed and HEADER_TIMEOUT - 0.5 < took < HEADER_TIMEOUT + 4, f"slow body: closed={closed} after {took:.1f} s"
    t0 = time.time()
    while "slow_body=1" not in d.read_log():  # the reaper logs right after it closes
        assert time.time() - t0 < 2, "no log line for the slow body"
        time.sleep(0.05)


def main(binary):
    env = {"DUCTILED_MAX_CONNECTIONS": str(MAX), "DUCTILED_MAX_CONNECTIONS_PER_CLIENT": str(PER_CLIENT),
           "DUCTILED_HEADER_TIMEOUT": str(HEADER_TIMEOUT), "DUCTILED_BODY_MIN_RATE": "1000",
           "DUCTILED_RATE_LIMIT": "0"}
    with started(binary, env) as d:
        jid = d.request("POST", "/v1/jobs", unit_cube()).json["id"]
        d.wait_job(jid)
        poller = Poller(d, jid)
        poller.start()
        try:
            n, took = one_address(d, poller)
            over_limit_reply(d)
            all_connections(d, poller)
            slow_body(d)
            time.sleep(0.2)
        finally:
            poller.stop = True
            poller.join()
        assert not poller.failures, poller.failures[:5]
        assert poller.ok > 100, poller.ok
        assert d.request("POST", "/v1/jobs", unit_cube()).status == 201  # a normal upload is not slow
        print(f"{n} sockets of one address closed within {took:.1f} s; the poller: {poller.ok} answers, "
              f"none failed, slowest {1e3 * poller.worst:.0f} ms")


if __name__ == "__main__":
    run(main)
