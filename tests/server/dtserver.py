"""Test harness for ductiled: start a daemon on a free loopback port with a fresh data
directory, talk to it with http.client, and validate every response against
schema/openapi.yaml (kept in the JSON-compatible subset of YAML, so json parses it).

The validator covers the subset of OpenAPI 3.1 / JSON Schema the spec uses: $ref, type
(string or list), required, properties, additionalProperties: false, items, enum, pattern,
minimum, maximum, minLength, maxLength."""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SPEC_PATH = os.path.join(ROOT, "schema", "openapi.yaml")

# The store the daemons use: SQLite in their data directory, or, when DUCTILE_TEST_PG names the
# INFO file of a PostgreSQL server that pgcluster.py started (ctest's server_pg_* tests), a
# database of that server per data directory (daemons that share a data directory share it).
PG_INFO = os.environ.get("DUCTILE_TEST_PG")
STORE = "postgresql" if PG_INFO else "sqlite"


def pg_database(data_dir):
    """The PostgreSQL database (its URL) of a data directory, created on first use."""
    import hashlib
    import pgcluster
    info = pgcluster.load(PG_INFO)
    name = "t_" + hashlib.sha1(os.path.realpath(data_dir).encode()).hexdigest()[:20]
    return pgcluster.createdb(info, name)


def sql(data_dir, query):
    """Rows of a query on the store of the daemons of data_dir (either store): lists of text. A
    statement that changes rows is committed."""
    if PG_INFO:
        import pgcluster
        return pgcluster.psql(pgcluster.load(PG_INFO), pg_database(data_dir).rsplit("/", 1)[1], query)
    import sqlite3
    con = sqlite3.connect(os.path.join(data_dir, "ductile.db"), timeout=30)
    try:
        rows = [[None if v is None else str(v) for v in row] for row in con.execute(query).fetchall()]
        con.commit()
        return rows
    finally:
        con.close()


def skip_unless_sqlite(why):
    """Exit 77 (ctest: skipped) when the tests run against PostgreSQL: the test reads or breaks
    the SQLite file itself."""
    if PG_INFO:
        print(f"SKIP under PostgreSQL: {why}")
        sys.exit(77)


def load_spec():
    with open(SPEC_PATH) as f:
        return json.load(f)


SPEC = load_spec()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class SchemaError(AssertionError):
    pass


def resolve(ref):
    node = SPEC
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def type_ok(value, t):
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[t])


def validate(value, schema, where="$"):
    if "$ref" in schema:
        return validate(value, resolve(schema["$ref"]), where)
    t = schema.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(type_ok(value, x) for x in ts):
            raise SchemaError(f"{where}: expected {t}, got {type(value).__name__}: {str(value)[:80]}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(f"{where}: {value!r} not in {schema['enum']}")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise SchemaError(f"{where}: {value!r} does not match {schema['pattern']}")
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", 1 << 60):
            raise SchemaError(f"{where}: length out of range")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            raise SchemaError(f"{where}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise SchemaError(f"{where}: {value} > {schema['maximum']}")
    if isinstance(value, dict):
        for k in schema.get("required", []):
            if k not in value:
                raise SchemaError(f"{where}: missing required key {k!r}")
        props = schema.get("properties", {})
        for k, v in value.items():
            if k in props:
                validate(v, props[k], f"{where}.{k}")
            elif schema.get("additionalProperties") is False:
                raise SchemaError(f"{where}: unexpected key {k!r}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            validate(v, schema["items"], f"{where}[{i}]")


def template_for(path):
    """The spec's path template matching a concrete path, or None."""
    path = path.split("?", 1)[0]
    for tmpl in SPEC["paths"]:
        rx = "^" + re.sub(r"\{[^/]+\}", "[^/]+", re.escape(tmpl).replace(r"\{", "{").replace(r"\}", "}")) + "$"
        if re.match(rx, path):
            return tmpl
    return None


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body
        self._json = None

    @property
    def json(self):
        if self._json is None:
            self._json = json.loads(self.body)
        return self._json

    def __repr__(self):
        return f"<{self.status} {self.body[:300]!r}>"


HITS = set()


def check_response(method, path, resp):
    """Validate status, content type and body against the spec (error envelope included)."""
    ctype = resp.headers.get("content-type", "")
    tmpl = template_for(path)
    if tmpl is None or method.lower() not in SPEC["paths"][tmpl]:
        # Unknown routes and methods: 404 / 405 with the error envelope.
        assert resp.status in (404, 405), f"{method} {path}: unspecified route answered {resp.status}"
        if method.upper() == "HEAD":
            assert resp.body == b"", f"HEAD {path}: a body"
            return
        validate(json.loads(resp.body), {"$ref": "#/components/schemas/Error"}, "error")
        return
    op = SPEC["paths"][tmpl][method.lower()]
    spec_resp = op["responses"].get(str(resp.status))
    if spec_resp is None:
        raise SchemaError(f"{method} {tmpl}: status {resp.status} is not documented: {resp.body[:200]!r}")
    HITS.add((method.upper(), tmpl, resp.status))
    if "$ref" in spec_resp:
        spec_resp = resolve(spec_resp["$ref"])
    content = spec_resp.get("content")
    if not content:
        assert resp.body in (b"",), f"{method} {path}: expected no body"
        return
    base = ctype.split(";")[0].strip()
    assert base in content, f"{method} {path}: content type {ctype!r} not in {list(content)}"
    if method.upper() == "HEAD":  # the headers of GET, no body
        assert resp.body == b"", f"HEAD {path}: a body"
        return
    if base == "application/json":
        validate(json.loads(resp.body), content[base]["schema"], f"{method} {tmpl} {resp.status}")


class Daemon:
    def __init__(self, binary, extra_env=None, data_dir=None, keep=False, tls_ca=None):
        """tls_ca: the PEM certificate to trust when the daemon speaks HTTPS (tls_cert, tls_key
        in extra_env); None for plain HTTP."""
        self.binary = binary
        self.tls_ca = tls_ca
        self.port = free_port()
        self.own_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="ductiled-test-")
        self.env = dict(os.environ)
        self.env.update({"DUCTILED_LISTEN": f"127.0.0.1:{self.port}", "DUCTILED_DATA_DIR": self.data_dir,
                         "DUCTILED_GPUS": "cpu", "DUCTILED_SOLVER_THREADS": "1"})
        if PG_INFO:
            self.env["DUCTILED_DATABASE"] = pg_database(self.data_dir)
            # A daemon started again on the same data directory has a new port, so a new
            # instance name: the jobs a kill left running wait for their leases to end.
            self.env["DUCTILED_LEASE_SECONDS"] = "5"
        self.env.update(extra_env or {})
        self.proc = None
        self.log_path = os.path.join(self.data_dir, "..", os.path.basename(self.data_dir) + ".log")
        self.keep = keep

    def start(self, timeout=30):
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([self.binary], env=self.env, stdout=self.log, stderr=self.log)
        token_path = os.path.join(self.data_dir, "admin.token")
        t0 = time.time()
        while time.time() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ductiled exited with {self.proc.returncode}:\n{self.read_log()}")
            if os.path.exists(token_path):
                self.token = open(token_path).read().strip()
                try:
                    if self.request("GET", "/v1/health", check=False).status == 200:
                        return self
                except OSError:
                    pass
            time.sleep(0.05)
        raise RuntimeError("ductiled did not become ready:\n" + self.read_log())

    def read_log(self):
        try:
            return open(self.log_path, errors="replace").read()
        except OSError:
            return ""

    def listening_count(self):
        """How often the daemon has said it listens: a restart in place says it once more."""
        return self.read_log().count("msg=listening ")

    def wait_back(self, timeout=60):
        """Wait until the daemon answers again with status ok (after a restart in place)."""
        t0 = time.time()
        while time.time() - t0 < timeout:
            try:
                h = self.request("GET", "/v1/health", check=False)
                if h.status == 200 and h.json["status"] == "ok":
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError("the daemon did not come back:\n" + self.read_log())

    def wait_restarted(self, listening, timeout=60):
        """Wait for a restart in place (more "listening" lines than `listening`, the same process
        still running), then until it answers."""
        t0 = time.time()
        while self.listening_count() == listening:
            assert self.proc.poll() is None, "the daemon exited instead of restarting:\n" + self.read_log()
            assert time.time() - t0 < timeout, "no restart:\n" + self.read_log()
            time.sleep(0.05)
        self.wait_back(timeout)

    def conn(self, timeout=30):
        if self.tls_ca:
            ctx = ssl.create_default_context(cafile=self.tls_ca)
            return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout, context=ctx)
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, token="admin", check=True, timeout=30):
        h = {}
        if token == "admin":
            h["Authorization"] = "Bearer " + self.token
        elif token:
            h["Authorization"] = "Bearer " + token
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        c = self.conn(timeout)
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            resp = Response(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
        finally:
            c.close()
        if check:
            check_response(method, path, resp)
        return resp

    def wait_job(self, job_id, timeout=60, states=("succeeded", "failed", "cancelled")):
        t0 = time.time()
        while time.time() - t0 < timeout:
            j = self.request("GET", f"/v1/jobs/{job_id}").json
            if j["state"] in states:
                return j
            time.sleep(0.05)
        raise AssertionError(f"job {job_id} did not reach {states}")

    def sse_stream(self, job_id, last_event_id=None, timeout=60):
        """Follow the event stream: yields each (id, event, data) as it arrives, validated
        against the spec, until the stream ends (timeout: the longest silence allowed)."""
        h = {"Accept": "text/event-stream", "Authorization": "Bearer " + self.token}
        if last_event_id is not None:
            h["Last-Event-ID"] = str(last_event_id)
        c = self.conn(timeout)
        try:
            c.request("GET", f"/v1/jobs/{job_id}/events", headers=h)
            r = c.getresponse()
            assert r.status == 200, r.status
            assert r.getheader("Content-Type").startswith("text/event-stream")
            HITS.add(("GET", "/v1/jobs/{job_id}/events", 200))
            cur = {}
            for raw in r:
                line = raw.decode().rstrip("\n")
                if line == "":
                    if "data" in cur:
                        d = json.loads(cur["data"])
                        validate(d, {"$ref": "#/components/schemas/Event"}, "sse event")
                        yield int(cur["id"]), cur["event"], d
                    cur = {}
                    continue
                if line.startswith(":"):
                    continue
                k, _, v = line.partition(": ")
                cur[k] = v
        finally:
            c.close()

    def sse(self, job_id, last_event_id=None, timeout=60):
        """Follow the event stream to its end; returns the list of (id, event, data)."""
        return list(self.sse_stream(job_id, last_event_id, timeout))

    def poll_events(self, job_id, after=0, limit=None):
        events = []
        while True:
            q = f"?after={after}" + (f"&limit={limit}" if limit else "")
            page = self.request("GET", f"/v1/jobs/{job_id}/events{q}").json
            events += page["events"]
            if not page["events"]:
                return events, page["done"]
            after = page["next_after"]

    def sql(self, query):
        """Rows of a query on this daemon's store (either store), as lists of text."""
        return sql(self.data_dir, query)

    def cli(self, *args):
        return subprocess.run([self.binary, *args], env=self.env, capture_output=True, text=True, timeout=30)

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("ductiled did not stop within %d s" % timeout)
        rc = self.proc.returncode if self.proc else 0
        self.log.close()
        return rc

    def cleanup(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.own_dir and not self.keep:
            drop_database(self.data_dir)
            shutil.rmtree(self.data_dir, ignore_errors=True)
            try:
                os.unlink(self.log_path)
            except OSError:
                pass


def drop_database(data_dir):
    """Drop the PostgreSQL database of a data directory (nothing for SQLite)."""
    if PG_INFO:
        import pgcluster
        db = pg_database(data_dir).rsplit("/", 1)[1]
        try:
            pgcluster.psql(pgcluster.load(PG_INFO), "postgres", f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
        except RuntimeError:
            pass


def attempt_dir(data_dir, jid, attempt=None):
    """The directory an attempt of job jid writes into, jobs/<id>/attempt-<n> (server/job_dirs.h):
    attempt n, or by default the latest one there is (None when there is none)."""
    job = os.path.join(data_dir, "jobs", jid)
    if attempt is None:
        found = [int(e[len("attempt-"):]) for e in (os.listdir(job) if os.path.isdir(job) else [])
                 if e.startswith("attempt-") and e[len("attempt-"):].isdigit()]
        if not found:
            return None
        attempt = max(found)
    return os.path.join(job, f"attempt-{attempt}")


def remove_data_dir(data):
    """Remove a data directory shared by several daemons of one test, and their log beside it."""
    drop_database(data)
    shutil.rmtree(data, ignore_errors=True)
    if os.path.exists(data + ".log"):
        os.unlink(data + ".log")


def unit_cube():
    with open(os.path.join(ROOT, "examples", "unit_cube.json")) as f:
        return json.load(f)


def explicit_job(period=0.02, frames=20):
    """examples/shell_plate_explicit.json (an 8 x 8 MITC4 steel plate, simply supported, under a
    damped pressure ramp to period / 2, then held) over the given time period, with the given
    number of output frames (a VTU each). The example's 0.02 takes about 0.7 s in a Release build
    with one thread; the time scales with the period."""
    with open(os.path.join(ROOT, "examples", "shell_plate_explicit.json")) as f:
        job = json.load(f)
    x = job["steps"][0]["explicit"]
    x["time"] = period
    x["output"] = {"frames": frames}
    x["amplitude"] = [[0.0, 0.0], [period / 2, 1.0], [period, 1.0]]
    return job


def box_job(n, increments=(10, 10)):
    """An n x n x n hex8 cube, the unit cube's material and boundary conditions, loaded to 400
    then 600 MPa in the given numbers of increments (plastic from the first step): a job with
    many increments that takes a few seconds on the CPU backend (n = 9: about 1 s in a Release
    build, 6 s in a Debug build, with one thread). The final u_z of the top is 5.272727e-3."""
    def nid(i, j, k):
        return 1 + i + (n + 1) * (j + (n + 1) * k)
    rng = range(n + 1)
    nodes = [[nid(i, j, k), i / n, j / n, k / n] for k in rng for j in rng for i in rng]
    conn, top = [], []
    for k in range(n):
        for j in range(n):
            for i in range(n):
                e = len(conn) + 1
                conn.append([e, nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                             nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)])
                if k == n - 1:
                    top.append([e, "S2"])
    job = unit_cube()
    job["title"] = f"box {n}^3"
    job["mesh"] = {"nodes": nodes, "elements": [{"type": "hex8", "connectivity": conn}],
                   "node_sets": {"x0": [nid(0, j, k) for j in rng for k in rng],
                                 "y0": [nid(i, 0, k) for i in rng for k in rng],
                                 "z0": [nid(i, j, 0) for i in rng for j in rng],
                                 "top": [nid(i, j, n) for i in rng for j in rng]},
                   "element_sets": {"all": list(range(1, len(conn) + 1))}, "surfaces": {"top": top}}
    steps = []
    for p, m in zip((400, 600), increments):
        s = dict(job["steps"][0])
        s.update(name=f"p{p}", increments=m, loads=[{"type": "traction", "surface": "top", "value": [0, 0, p]}])
        steps.append(s)
    job["steps"] = steps
    job["output"] = {"fields": ["U", "RF", "S", "PEEQ"], "vtu": True, "every": 1,
                     "monitors": [{"name": "uz_top", "node_set": "top", "quantity": "U", "component": "z"}]}
    return job


def run(main):
    """Run main(daemon_binary) and report; exit status for ctest."""
    binary = sys.argv[1]
    try:
        main(binary)
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)
    print("PASS")


class started:
    """with started(binary, env) as d: ... — prints the daemon log on failure, always cleans
    up, and on success requires a clean SIGTERM exit (status 0: no leaks under ASan)."""

    def __init__(self, binary, extra_env=None, data_dir=None, tls_ca=None):
        self.d = Daemon(binary, extra_env, data_dir, tls_ca=tls_ca)

    def __enter__(self):
        self.d.start()
        return self.d

    def __exit__(self, et, ev, tb):
        try:
            if et is None:
                rc = self.d.stop()
                if rc != 0:
                    sys.stderr.write(self.d.read_log()[-20000:])
                    raise AssertionError(f"ductiled exited with status {rc} after SIGTERM")
            else:
                log = self.d.read_log()
                self.d.cleanup()
                sys.stderr.write("---- daemon log (tail) ----\n" + log[-20000:])
        finally:
            self.d.cleanup()
        return False
