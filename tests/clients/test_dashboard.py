"""Browser test of the web dashboard: a real ductiled, Debian's chromium driven by Playwright
(playwright-core from clients/dashboard/node_modules, executablePath /usr/bin/chromium, WebGL
through SwiftShader). The page is served by the daemon at / (DUCTILE_DASHBOARD_DIR=DIST_DIR).
Only if the daemon's / does not serve it does dashboard_proxy.py (static dist/ + /v1 proxied,
same origin) stand in, with a warning; with DUCTILE_REQUIRE_DAEMON_DASHBOARD=1 (set by the
ctest registration) the test fails instead. The checks themselves are in
browser/test_dashboard.mjs; browser_checks is the harness, which test_dashboard_explicit.py
shares.

usage: test_dashboard.py DUCTILED DIST_DIR NODE_MODULES_DIR
Exit 77 (ctest SKIP) without chromium or node. DUCTILE_SCREENSHOTS=DIR keeps the screenshots
there (docs/images is refreshed this way)."""
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))
import dtserver  # noqa: E402
import dashboard_proxy  # noqa: E402
import jobs  # noqa: E402

SKIP = 77


def daemon_serves_dashboard(port, dist):
    """None when the daemon's / serves dist/index.html, else why not."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        c.request("GET", "/")
        r = c.getresponse()
        body = r.read()
        c.close()
    except OSError as e:
        return f"GET / failed: {e}"
    with open(os.path.join(dist, "index.html"), "rb") as f:
        want = f.read()
    if r.status != 200 or not r.getheader("Content-Type", "").startswith("text/html") or body != want:
        return f"GET / answered {r.status} {r.getheader('Content-Type')!r} ({len(body)} bytes, not dist/index.html)"
    return None


def restart_in_place(d):
    """SIGUSR1 with nothing running: the daemon starts afresh in place; wait until it answers."""
    listening = d.listening_count()
    d.proc.send_signal(signal.SIGUSR1)
    d.wait_restarted(listening, timeout=30)
    rs = d.request("GET", "/v1/health").json["restarts"]
    assert rs["count"] == 1, rs


def browser_checks(binary, script, files, before=None):
    """A daemon serving the dashboard, then node browser/<script> against it (BASE_URL, TOKEN,
    SHOTS, CHROMIUM, PLAYWRIGHT_CORE in its environment, and each name of files: the path of
    its JSON document, written to a scratch folder). before(daemon) runs first. Exit 77 without
    chromium or node."""
    dist, node_modules = sys.argv[2], sys.argv[3]
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    node = shutil.which("node")
    if not os.path.exists(chromium) or not node:
        print(f"SKIP: needs {chromium} (apt-get install chromium) and node")
        sys.exit(SKIP)
    if not os.path.isfile(os.path.join(dist, "index.html")):
        raise AssertionError(f"the dashboard is not built: {dist}/index.html missing")
    pw = os.path.join(node_modules, "playwright-core", "index.mjs")
    if not os.path.isfile(pw):
        raise AssertionError(f"playwright-core is not installed: {pw} (npm ci in clients/dashboard)")
    work = tempfile.mkdtemp(prefix="dt-browser-")
    shots = os.environ.get("DUCTILE_SCREENSHOTS") or os.path.join(work, "shots")
    os.makedirs(shots, exist_ok=True)
    env = dict(os.environ, SHOTS=shots, CHROMIUM=chromium, PLAYWRIGHT_CORE=pw)
    for name, doc in files.items():
        env[name] = os.path.join(work, name.lower() + ".json")
        with open(env[name], "w") as f:
            json.dump(doc, f)
    proxy = None
    try:
        with dtserver.started(binary, {"DUCTILE_DASHBOARD_DIR": dist}) as d:
            if before:
                before(d)
            why = daemon_serves_dashboard(d.port, dist)
            if why is None:
                base, how = f"http://127.0.0.1:{d.port}", "the daemon"
            elif os.environ.get("DUCTILE_REQUIRE_DAEMON_DASHBOARD") == "1":
                raise AssertionError(f"the daemon does not serve the dashboard at /: {why} "
                                     "(DUCTILE_REQUIRE_DAEMON_DASHBOARD=1: no proxy fallback)")
            else:
                proxy, port = dashboard_proxy.serve(dist, f"http://127.0.0.1:{d.port}")
                base, how = f"http://127.0.0.1:{port}", f"dashboard_proxy.py (WARNING: the daemon's / failed: {why})"
            print(f"dashboard served by {how} at {base}", flush=True)
            env.update(BASE_URL=base, TOKEN=d.token)
            r = subprocess.run([node, os.path.join(HERE, "browser", script)], env=env, timeout=280)
            if r.returncode != 0:
                raise AssertionError(f"browser test failed (exit {r.returncode}); screenshots in {shots}")
    finally:
        if proxy:
            proxy.shutdown()
        if not os.environ.get("DUCTILE_SCREENSHOTS"):
            shutil.rmtree(work, ignore_errors=True)


def main(binary):
    # ~10 s in a Release build; the status bar must then name the restart (browser check)
    browser_checks(binary, "test_dashboard.mjs", {"LONG_JOB": jobs.beam_job(40, 4, 6, 50, -12.0)},
                   before=restart_in_place)


if __name__ == "__main__":
    dtserver.run(main)
