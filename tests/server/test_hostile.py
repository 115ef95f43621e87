"""Malformed and hostile requests: each gets its documented 4xx (JSON error envelope, checked
against the spec) and the daemon keeps serving. CI runs this against the AddressSanitizer
build too. The body limit is lowered to 64 KiB and the connection timeout to 2 s here."""
import json
import socket
import time

from dtserver import run, started, unit_cube

LIMIT = 65536


def raw(d, data, timeout=10, shutdown=False):
    """Send raw bytes; return (status or None, response bytes)."""
    s = socket.create_connection(("127.0.0.1", d.port), timeout=timeout)
    s.sendall(data)
    if shutdown:
        s.shutdown(socket.SHUT_WR)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
            if b"\r\n\r\n" in out and b"Content-Length: " in out:
                head, _, body = out.partition(b"\r\n\r\n")
                n = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                if len(body) >= n:
                    break
    except socket.timeout:
        pass
    s.close()
    status = int(out.split(b" ")[1]) if out.startswith(b"HTTP/") else None
    return status, out


def job_with(**changes):
    job = unit_cube()
    for path, value in changes.items():
        node = job
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if value is KeyError:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return json.dumps(job).encode()


def main(binary):
    env = {"DUCTILED_MAX_BODY_BYTES": str(LIMIT), "DUCTILED_CONNECTION_TIMEOUT": "2"}
    with started(binary, env) as d:
        mid = d.request("POST", "/v1/meshes", unit_cube()["mesh"]).json["id"]
        jid = d.request("POST", "/v1/jobs", unit_cube()).json["id"]
        d.wait_job(jid)
        cube = json.dumps(unit_cube()).encode()
        inverted = unit_cube()["mesh"]
        inverted["elements"][0]["connectivity"][0] = [1, 5, 6, 7, 8, 1, 2, 3, 4]
        json_h = {"Content-Type": "application/json"}
        # (method, path, body, headers, status, error code)
        cases = [
            ("POST", "/v1/jobs", b'{"ductile": 1,', {}, 400, "invalid_json"),
            ("POST", "/v1/jobs", b"", {}, 400, "empty_body"),
            ("POST", "/v1/jobs", b"[]", {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", b'"just a string"', {}, 400, "invalid_json"),
            ("POST", "/v1/jobs", b"\xff\xfe{}", {}, 400, "invalid_json"),
            ("POST", "/v1/jobs", b'{"a": "x\x00y"}', {}, 400, "invalid_json"),
            ("POST", "/v1/jobs", b"[" * 30000 + b"]" * 30000, {}, 400, "invalid_json"),
            ("POST", "/v1/jobs", b'{"ductile": 1, "ductile": 1}', {}, 400, "invalid_json"),
            ("POST", "/v1/jobs", cube.replace(b'"E": 200000.0', b'"E": 1e400'), {}, 400, "invalid_json"),
            ("POST", "/v1/jobs", cube.replace(b"[1, 0.0, 0.0, 0.0]", b"[99999999999999999999999, 0.0, 0.0, 0.0]"), {}, 400, "invalid_json"),
            ("POST", "/v1/jobs", job_with(ductile="1"), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(ductile=2), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(materials__0__elastic__nu=0.5), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(materials__0__elastic__E=-1), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(materail=[]), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(sections__0__materail="steel"), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(steps__0__increments=-1), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(steps__0__increments=1e300), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(mesh__nodes__0=[2 ** 60, 0, 0, 0]), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(mesh__nodes__0=[1, "x", 0, 0]), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(steps=[]), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(mesh_id=mid), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(mesh=KeyError, mesh_id="../../etc/passwd"), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(mesh=KeyError, mesh_id=12), {}, 422, "invalid_job"),
            ("POST", "/v1/jobs", job_with(mesh=KeyError, mesh_id="m-0123456789abcdef"), {}, 422, "mesh_not_found"),
            ("POST", "/v1/jobs?priority=9", cube, {}, 400, "unknown_parameter"),
            ("POST", "/v1/jobs", b"{" + b" " * (LIMIT + 10) + b"}", {}, 413, "body_too_large"),
            ("POST", "/v1/meshes", json.dumps(inverted).encode(), {}, 422, "invalid_mesh"),
            ("POST", "/v1/meshes", b'{"nodes": "x", "elements": []}', {}, 422, "invalid_mesh"),
            ("POST", "/v1/meshes", b'{"nodes": [], "elements": [], "extra": 1}', {}, 422, "invalid_mesh"),
            ("POST", "/v1/meshes?name=", cube, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs/j-..%2F..%2Fetc%2Fpasswd", None, {}, 404, "not_found"),
            ("GET", "/v1/jobs/J-0123456789ABCDEF", None, {}, 404, "not_found"),
            ("GET", "/v1/meshes/m-0123456789abcdeg", None, {}, 404, "not_found"),
            ("GET", f"/v1/jobs/{jid}/results/increments/-1", None, {}, 404, "not_found"),
            ("GET", f"/v1/jobs/{jid}/results/increments/99999999999999999999999", None, {}, 404, "not_found"),
            ("GET", f"/v1/jobs/{jid}/results/increments/0/vtu", None, {}, 404, "not_found"),
            ("GET", f"/v1/jobs/{jid}/results/increments/1?fields=X", None, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs?limit=0", None, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs?limit=-5", None, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs?limit=abc", None, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs?limit=1e3", None, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs?cursor=-1", None, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs?state=bogus", None, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs?mesh_id=../x", None, {}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs?foo=1", None, {}, 400, "unknown_parameter"),
            ("GET", f"/v1/jobs/{jid}/events?after=-1", None, {}, 400, "invalid_parameter"),
            ("GET", f"/v1/jobs/{jid}/events?after=1e99", None, {}, 400, "invalid_parameter"),
            ("GET", f"/v1/jobs/{jid}/events", None, {"Accept": "text/event-stream", "Last-Event-ID": "abc"}, 400, "invalid_parameter"),
            ("GET", "/v1/jobs/j-0123456789abcdef/events", None, {}, 404, "not_found"),
            ("POST", "/v1/jobs/j-0123456789abcdef/cancel", None, {}, 404, "not_found"),
            ("DELETE", "/v1/meshes/m-0123456789abcdef", None, {}, 404, "not_found"),
            ("PATCH", "/v1/jobs", None, {}, 405, "method_not_allowed"),
            ("PUT", f"/v1/jobs/{jid}", b"{}", {}, 405, "method_not_allowed"),
            ("GET", "/v1/jobs/x/y/z", None, {}, 404, "not_found"),
            ("GET", "/nowhere", None, {}, 404, "not_found"),
            ("GET", "/v1", None, {}, 404, "not_found"),
        ]
        for method, path, body, headers, status, code in cases:
            h = dict(json_h) if body is not None else {}
            h.update(headers)
            r = d.request(method, path, body, h)
            assert r.status == status, (method, path[:80], r)
            err = r.json["error"]
            assert err["code"] == code and err["message"], (method, path[:80], r)
            if status == 405:  # which methods are allowed: in the header and the details
                assert r.headers.get("allow") and r.headers["allow"] == err["details"]["allow"], r.headers
            assert d.request("GET", "/v1/health").status == 200
        n_api = len(cases)

        # Malformed JSON reports line and column.
        r = d.request("POST", "/v1/jobs", b'{\n  "ductile": 1,\n  "mesh": {,\n}', json_h)
        assert r.json["error"]["details"]["line"] == 3 and r.json["error"]["details"]["column"] >= 11, r
        # Precise validation messages name the JSON path.
        r = d.request("POST", "/v1/jobs", job_with(materials__0__elastic__nu=0.5), json_h)
        assert r.json["error"]["details"]["path"] == "materials[0].elastic.nu", r

        # Protocol level (libmicrohttpd answers these itself): a 4xx and the daemon lives on.
        token = f"Authorization: Bearer {d.token}\r\n".encode()
        big = b"x" * LIMIT * 3
        proto = [
            b"HELLO\r\n\r\n",
            b"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
            b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200000 + b"\r\n\r\n",
            b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n" + token + b"Transfer-Encoding: chunked\r\n\r\n"
            + b"%x\r\n" % len(big) + big + b"\r\n0\r\n\r\n",
            b"GET /v1/health HTTP/9.9\r\nHost: x\r\n\r\n",
        ]
        for data in proto:
            status, out = raw(d, data)
            assert status is None or 400 <= status < 500 or status == 505, (data[:60], out[:200])
            assert d.request("GET", "/v1/health").status == 200
        status, out = raw(d, proto[3])
        assert status == 413 and b"body_too_large" in out, out[:300]

        # Slow clients: headers or body that stop half-way are dropped after the timeout while
        # other clients are served.
        slow = []
        for data in [b"GET /v1/health HTTP/1.1\r\nHost: x\r\n",
                     b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\n" + token + b"Content-Length: 1000\r\n\r\n{\"ductile\":"]:
            s = socket.create_connection(("127.0.0.1", d.port), timeout=10)
            s.sendall(data)
            slow.append(s)
        t0 = time.time()
        for _ in range(10):
            assert d.request("GET", "/v1/health").status == 200
        for s in slow:
            rest = s.recv(65536)
            assert rest == b"" or rest.startswith(b"HTTP/1.1 4"), rest[:100]
            s.close()
        assert time.time() - t0 < 8, "slow clients were not dropped"

        assert d.request("GET", "/v1/health").json["status"] == "ok"
        print(f"{n_api} API cases, {len(proto)} protocol cases, 2 slow clients")


if __name__ == "__main__":
    run(main)
