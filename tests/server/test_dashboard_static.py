"""The dashboard's static files at / (server/handlers_dashboard.c): index.html and top-level
files, /assets/<file>, content types, ETag / Last-Modified / 304, Cache-Control, HEAD, no
token needed (while /v1 still needs one), strict path handling (traversal, encoded traversal,
hidden files, directories, symlinks out of the directory -> 404), the configuration
(DUCTILE_DASHBOARD_DIR, dashboard_dir) and the "not installed" page."""
import http.client
import os
import shutil
import tempfile

import dtserver
from dtserver import started

FILES = {
    "index.html": (b"<!doctype html><title>ductile dashboard</title><script src=./assets/index-AbC123.js></script>",
                   "text/html"),
    "assets/index-AbC123.js": (b"console.log('ductile');\n", "text/javascript"),
    "assets/index-x1y2.css": (b"body{margin:0}\n", "text/css"),
    "assets/logo.svg": (b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml"),
    "assets/solver.wasm": (b"\0asm\1\0\0\0", "application/wasm"),
    "assets/pic.png": (b"\x89PNG\r\n\x1a\n", "image/png"),
    "favicon.ico": (b"\0\0\1\0", "image/x-icon"),
    "manifest.json": (b'{"name": "ductile"}', "application/json"),
    "notes.unknownext": (b"x", "application/octet-stream"),
    ".hidden": (b"secret", None),
}


def raw(d, method, path, headers=None):
    """Exactly this path on the wire (no client-side normalization)."""
    c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
    try:
        c.putrequest(method, path, skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            c.putheader(k, v)
        c.endheaders()
        r = c.getresponse()
        return dtserver.Response(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    finally:
        c.close()


def make_dir(root):
    dist = os.path.join(root, "dist")
    os.makedirs(os.path.join(dist, "assets", "subdir"))
    for name, (body, _) in FILES.items():
        with open(os.path.join(dist, name), "wb") as f:
            f.write(body)
    with open(os.path.join(root, "secret.txt"), "w") as f:
        f.write("outside the dashboard directory\n")
    os.symlink(os.path.join(root, "secret.txt"), os.path.join(dist, "assets", "escape.js"))
    os.symlink("/etc/passwd", os.path.join(dist, "passwd"))
    os.symlink(os.path.join(dist, "index.html"), os.path.join(dist, "assets", "inside.html"))
    return dist


def main(binary):
    root = tempfile.mkdtemp(prefix="dt-dash-")
    try:
        dist = make_dir(root)
        with started(binary, {"DUCTILE_DASHBOARD_DIR": dist}) as d:
            assert f"dashboard: serving {os.path.realpath(dist)}" in d.read_log(), "the dashboard dir is not logged"
            check_serving(d)
            check_traversal(d)
        # the config key (here through its DUCTILED_ variable) when DUCTILE_DASHBOARD_DIR is unset
        with started(binary, {"DUCTILE_DASHBOARD_DIR": "", "DUCTILED_DASHBOARD_DIR": dist}) as d:
            r = d.request("GET", "/", token=None)
            assert r.status == 200 and b"ductile dashboard" in r.body, r
        with started(binary, {"DUCTILE_DASHBOARD_DIR": os.path.join(root, "missing")}) as d:
            check_not_installed(d)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def check_serving(d):
    r = d.request("GET", "/", token=None)
    assert r.status == 200 and r.body == FILES["index.html"][0], r
    assert r.headers["content-type"].startswith("text/html"), r.headers
    assert r.headers["cache-control"] == "no-cache", r.headers
    assert r.headers["x-content-type-options"] == "nosniff"
    etag, lastmod = r.headers["etag"], r.headers["last-modified"]
    assert etag.startswith('"') and lastmod.endswith("GMT"), r.headers
    # the same file as /index.html
    r2 = d.request("GET", "/index.html", token=None)
    assert r2.status == 200 and r2.body == r.body and r2.headers["etag"] == etag
    # conditional requests
    r = d.request("GET", "/", headers={"If-None-Match": etag}, token=None)
    assert r.status == 304 and r.body == b"" and r.headers["etag"] == etag, r
    r = d.request("GET", "/", headers={"If-None-Match": f'"other", W/{etag}'}, token=None)
    assert r.status == 304, r
    r = d.request("GET", "/", headers={"If-Modified-Since": lastmod}, token=None)
    assert r.status == 304, r
    assert d.request("GET", "/", headers={"If-None-Match": '"nope"'}, token=None).status == 200
    # HEAD: headers, no body
    h = d.request("HEAD", "/", token=None)
    assert h.status == 200 and h.body == b"" and h.headers["etag"] == etag, h
    assert int(h.headers["content-length"]) == len(FILES["index.html"][0]), h.headers
    h = d.request("HEAD", "/assets/index-AbC123.js", token=None)
    assert h.status == 200 and h.body == b"" and h.headers["content-type"].startswith("text/javascript"), h
    # content types and caching of every file
    for name, (body, ctype) in FILES.items():
        if ctype is None:
            continue
        r = d.request("GET", "/" + name, token=None)
        assert r.status == 200 and r.body == body, (name, r)
        assert r.headers["content-type"].split(";")[0] == ctype, (name, r.headers["content-type"])
        want = "public, max-age=31536000, immutable" if name.startswith("assets/") else "no-cache"
        assert r.headers["cache-control"] == want, (name, r.headers["cache-control"])
    # a symlink that stays inside the directory is served
    assert d.request("GET", "/assets/inside.html", token=None).status == 200
    # no token needed for the page; /v1 still needs one
    assert d.request("GET", "/v1/health", token=None).status == 401
    assert d.request("GET", "/v1/health").status == 200
    assert d.request("GET", "/metrics", token=None).status == 200
    r = d.request("POST", "/", b"x", token=None)
    assert r.status == 405 and "GET" in r.headers["allow"], r
    print("ok: index, assets, content types, ETag/Last-Modified/304, Cache-Control, HEAD")


def check_traversal(d):
    bad = ["/../etc/passwd", "/%2e%2e/", "/%2e%2e", "/%2E%2E/%2E%2E/etc/passwd", "/..", "/assets/../../x",
           "/assets/..", "/assets/%2e%2e", "/assets/..%2f..%2fsecret.txt", "/assets/%2e%2e%2f%2e%2e%2fsecret.txt",
           "/..%2fsecret.txt", "/%2fetc%2fpasswd", "//etc/passwd", "/etc/passwd", "/assets/escape.js", "/passwd",
           "/.hidden", "/assets/subdir", "/assets", "/assets/", "/assets/..%5c..%5csecret.txt",
           "/assets/%00", "/nope.js", "/assets/nope-123.js", "/v1", "/index.html/", "/./index.html",
           "/assets/./index-AbC123.js"]
    for path in bad:
        for method in ("GET", "HEAD"):
            r = raw(d, method, path)
            assert r.status == 404, (method, path, r)
            assert b"outside the dashboard" not in r.body and b"root:" not in r.body, (path, r.body)
            if method == "GET":
                assert r.headers["content-type"].startswith("application/json"), (path, r.headers)
                assert r.json["error"]["code"] == "not_found", (path, r.body)
    print(f"ok: {len(bad)} traversal / hidden / missing paths -> 404")


def check_not_installed(d):
    r = d.request("GET", "/", token=None)
    assert r.status == 404 and r.headers["content-type"].startswith("text/html"), r
    assert b"cmake --build build --target dashboard" in r.body and b"DUCTILE_DASHBOARD_DIR" in r.body, r.body
    assert d.request("HEAD", "/", token=None).status == 404
    r = d.request("GET", "/favicon.ico", token=None)
    assert r.status == 404 and r.json["error"]["code"] == "not_found", r
    assert d.request("GET", "/v1/health").status == 200
    assert "not a directory" in d.read_log(), "the missing dashboard dir is not logged"
    print("ok: no dashboard -> 404 page that says how to build it")


if __name__ == "__main__":
    dtserver.run(main)
