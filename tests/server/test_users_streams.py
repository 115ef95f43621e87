"""Open event streams of a revoked token or a disabled user end within a second or two, cleanly:
a comment line says why, then the closing chunk (no final event: clients see the stream end
without the terminal event, reconnect and get 401). Streams of other tokens and users go on.
Also /v1/health while a job runs: its worker's job_id is shown to the job's owner and to admins,
null to other users. Iterations are slowed down with DUCTILED_TEST_ITERATION_DELAY_MS so that
the jobs are surely running or queued throughout.
A user holds at most max_streams_per_user streams (2 here): the third is 429 too_many_streams
with the limit in its details, another user's stream is still served, and closing one of the
two lets a new one in."""
import http.client
import threading
import time

from dtserver import run, started, unit_cube


def add_user(d, name):
    r = d.cli("admin", "user", "add", name)
    assert r.returncode == 0, r.stderr
    return token(d, name)


def token(d, name):
    r = d.cli("token", "create", "--user", name, "--name", name)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def slow_job(mid):
    job = unit_cube()
    del job["mesh"]
    job["mesh_id"] = mid
    for s in job["steps"]:
        s["increments"] = 50
    return job


class Stream(threading.Thread):
    """An event stream read in a thread: its lines with their arrival times, and how it ended:
    "clean" (the closing chunk), "cut" (the connection closed without it) or an error."""

    def __init__(self, d, job_id, tok):
        super().__init__(daemon=True)
        self.d, self.job_id, self.tok = d, job_id, tok
        self.lines, self.end, self.ended_at, self.status = [], None, None, None
        self.start()

    def run(self):
        c = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=120)
        try:
            c.request("GET", f"/v1/jobs/{self.job_id}/events",
                      headers={"Accept": "text/event-stream", "Authorization": "Bearer " + self.tok})
            r = c.getresponse()
            self.status = r.status
            # read1, not line iteration: a connection closed without the closing chunk
            # raises IncompleteRead here, where readline would see a plain end of file.
            buf = b""
            while chunk := r.read1(65536):
                buf += chunk
                *done, buf = buf.split(b"\n")
                self.lines += [(time.time(), l.decode().rstrip("\r")) for l in done]
            self.end = "clean"
        except http.client.IncompleteRead:
            self.end = "cut"
        except Exception as e:  # reported by the assertions
            self.end = repr(e)
        finally:
            self.ended_at = time.time()
            c.close()

    def events(self):
        return [l[7:] for _, l in self.lines if l.startswith("event: ")]

    def wait_events(self, n, timeout=30):
        t0 = time.time()
        while len(self.events()) < n:
            assert time.time() - t0 < timeout and self.end is None, (self.end, self.lines[-5:])
            time.sleep(0.02)


def ends_soon(s, since, limit=2.5):
    s.join(limit + 5)
    assert s.end == "clean", (s.end, s.lines[-5:])
    assert s.ended_at - since < limit, f"the stream ended {s.ended_at - since:.2f} s later"
    print(f"stream of {s.job_id} ended {s.ended_at - since:.2f} s after the command returned")
    assert any(l.startswith(": stream closed") for _, l in s.lines), s.lines[-5:]
    ev = s.events()
    assert ev and ev[-1] not in ("job.succeeded", "job.failed", "job.cancelled"), ev[-3:]


def main(binary):
    with started(binary, {"DUCTILED_TEST_ITERATION_DELAY_MS": "100"}) as d:
        alice, bob = add_user(d, "alice"), add_user(d, "bob")
        alice2 = token(d, "alice")
        ids = {}
        for name, tok in (("alice", alice), ("bob", bob)):
            mid = d.request("POST", "/v1/meshes", unit_cube()["mesh"], token=tok).json["id"]
            ids[name] = d.request("POST", "/v1/jobs", slow_job(mid), token=tok).json["id"]
        a, b = ids["alice"], ids["bob"]
        d.wait_job(a, states=("running",))

        # Health: the running job's id only to its owner and to the admin. (The worker shows
        # its job once the model is built, a moment after the job became running.)
        def worker_jobs(tok):
            h = d.request("GET", "/v1/health", token=tok).json
            assert [w["busy"] for w in h["workers"]] == [True], h
            return [w["job_id"] for w in h["workers"]]
        t0 = time.time()
        while not d.request("GET", "/v1/health").json["workers"][0]["busy"]:
            assert time.time() - t0 < 30, "the worker does not show its job"
            time.sleep(0.02)
        assert worker_jobs(alice) == [a] and worker_jobs(d.token) == [a] and worker_jobs(bob) == [None]

        s_alice = Stream(d, a, alice)
        s_alice2 = Stream(d, a, alice2)
        s_admin = Stream(d, a, d.token)
        s_bob = Stream(d, b, bob)  # queued behind alice's job
        for s in (s_alice, s_alice2, s_admin):
            s.wait_events(3)
        s_bob.wait_events(1)
        assert all(s.status == 200 for s in (s_alice, s_alice2, s_admin, s_bob))

        # Revoke one of alice's tokens: its stream ends, her other one goes on.
        t0 = time.time()
        assert d.cli("token", "revoke", alice2[3:19]).returncode == 0
        ends_soon(s_alice2, t0)
        n = len(s_alice.events())
        s_alice.wait_events(n + 2)
        assert s_alice.end is None

        # Disable alice: her stream ends; the admin's on her job and bob's go on.
        t0 = time.time()
        assert d.cli("admin", "user", "disable", "alice").returncode == 0
        ends_soon(s_alice, t0)
        n = len(s_admin.events())
        s_admin.wait_events(n + 2)
        assert s_admin.end is None and s_bob.end is None, (s_admin.end, s_bob.end)

        # A reconnecting client gets 401.
        for tok in (alice, alice2):
            r = d.request("GET", f"/v1/jobs/{a}/events", headers={"Accept": "text/event-stream"}, token=tok)
            assert r.status == 401, r

        # The others end with their job's terminal event.
        assert d.request("POST", f"/v1/jobs/{a}/cancel").status == 202
        assert d.request("POST", f"/v1/jobs/{b}/cancel", token=bob).status == 202
        for s in (s_admin, s_bob):
            s.join(30)
            assert s.end == "clean" and s.events()[-1] == "job.cancelled", (s.end, s.lines[-5:])
        d.wait_job(a)
    streams_per_user(binary)


def streams_per_user(binary):
    with started(binary, {"DUCTILED_TEST_ITERATION_DELAY_MS": "100",
                          "DUCTILED_MAX_STREAMS_PER_USER": "2"}) as d:
        alice, bob = add_user(d, "alice"), add_user(d, "bob")
        mid = d.request("POST", "/v1/meshes", unit_cube()["mesh"], token=alice).json["id"]
        a = d.request("POST", "/v1/jobs", slow_job(mid), token=alice).json["id"]
        mid_b = d.request("POST", "/v1/meshes", unit_cube()["mesh"], token=bob).json["id"]
        b = d.request("POST", "/v1/jobs", slow_job(mid_b), token=bob).json["id"]
        s1, s2 = Stream(d, a, alice), Stream(d, a, alice)
        for s in (s1, s2):
            s.wait_events(1)
        r = d.request("GET", f"/v1/jobs/{a}/events", headers={"Accept": "text/event-stream"}, token=alice)
        assert r.status == 429 and r.json["error"]["code"] == "too_many_streams", r
        assert r.json["error"]["details"]["max_streams_per_user"] == 2, r.json
        print("third stream of one user:", r.status, r.json["error"]["message"])
        s_bob = Stream(d, b, bob)
        s_bob.wait_events(1)
        assert s_bob.status == 200
        # polling is not a stream
        assert d.request("GET", f"/v1/jobs/{a}/events", token=alice).status == 200
        # cancelling alice's job ends her two streams; then she may open one again
        assert d.request("POST", f"/v1/jobs/{a}/cancel", token=alice).status == 202
        for s in (s1, s2):
            s.join(30)
            assert s.end == "clean", (s.end, s.lines[-5:])
        t0 = time.time()
        while True:  # the daemon frees a stream's slot when libmicrohttpd releases the response
            s3 = Stream(d, b, alice)
            s3.join(0.5)
            if s3.status != 429:
                break
            assert time.time() - t0 < 10, "a closed stream's slot is not freed"
        assert s3.status in (200, 404), s3.status  # alice cannot see bob's job: 404, not 429
        s4 = Stream(d, a, alice)
        s4.join(30)
        assert s4.status == 200 and s4.end == "clean", (s4.status, s4.end)
        assert d.request("POST", f"/v1/jobs/{b}/cancel", token=bob).status == 202
        s_bob.join(30)


if __name__ == "__main__":
    run(main)
