"""Serve the built dashboard (dist/) and proxy /v1/* and /metrics to a ductiled: same origin for
the page and the API, as when the daemon serves the dashboard itself (DUCTILE_DASHBOARD_DIR).

Used by the browser tests when the daemon does not serve `/` (yet), and by hand:

    python3 tests/clients/dashboard_proxy.py --dist build/clients/dashboard/dist \\
        --upstream http://127.0.0.1:8080 --port 8081

Responses are streamed chunk by chunk, so Server-Sent Events pass through live."""
from __future__ import annotations

import argparse
import http.client
import http.server
import mimetypes
import os
import threading
import urllib.parse
from typing import Tuple

HOP = {"date", "server", "connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization"}


def make_handler(dist: str, upstream: str) -> type:
    up = urllib.parse.urlsplit(upstream)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt: str, *args: object) -> None:  # quiet
            pass

        def _proxy(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n) if n else None
            hdrs = {k: v for k, v in self.headers.items() if k.lower() not in HOP and k.lower() != "host"}
            conn = http.client.HTTPConnection(up.hostname, up.port or 80, timeout=3600)
            try:
                conn.request(self.command, self.path, body=body, headers=hdrs)
                r = conn.getresponse()
            except OSError as e:
                self.send_error(502, f"upstream unreachable: {e}")
                return
            self.send_response(r.status, r.reason)
            sized = r.getheader("Content-Length") is not None or r.status in (204, 304) or self.command == "HEAD"
            for k, v in r.getheaders():
                if k.lower() not in HOP:
                    self.send_header(k, v)
            if not sized:
                self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                while True:
                    chunk = r.read1(65536)
                    if not chunk:
                        break
                    self.wfile.write(chunk if sized else b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                if not sized:
                    self.wfile.write(b"0\r\n\r\n")
            except OSError:
                pass
            finally:
                conn.close()
                self.close_connection = True

        def _static(self) -> None:
            path = urllib.parse.urlsplit(self.path).path
            rel = "index.html" if path in ("/", "") else path.lstrip("/")
            full = os.path.realpath(os.path.join(dist, rel))
            if not full.startswith(os.path.realpath(dist) + os.sep) or not os.path.isfile(full):
                self.send_error(404)
                return
            with open(full, "rb") as f:
                data = f.read()
            ctype = mimetypes.guess_type(full)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _route(self) -> None:
            p = self.path
            if p.startswith("/v1/") or p == "/v1" or p.startswith("/metrics"):
                self._proxy()
            elif self.command in ("GET", "HEAD"):
                self._static()
            else:
                self.send_error(405)

        do_GET = do_POST = do_DELETE = do_HEAD = do_PUT = _route

    return Handler


def serve(dist: str, upstream: str, port: int = 0) -> Tuple[http.server.ThreadingHTTPServer, int]:
    """Start the server in a daemon thread; returns (server, port). server.shutdown() stops it."""
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), make_handler(dist, upstream))
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, srv.server_address[1]


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dist", required=True)
    ap.add_argument("--upstream", default="http://127.0.0.1:8080")
    ap.add_argument("--port", type=int, default=8081)
    a = ap.parse_args()
    s, p = serve(a.dist, a.upstream, a.port)
    print(f"dashboard on http://127.0.0.1:{p}/ (API proxied to {a.upstream})", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        s.shutdown()
