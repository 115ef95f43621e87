"""The event stream of a queued job keeps itself alive while another job emits events: each
stream sends its keep-alive comment on its own schedule (sse_keepalive seconds after it last
sent anything), however often other jobs' events wake it. Regression: the stream restarted its
keep-alive wait on every notification of any job, sent nothing while another job ran, and a
job that waited longer than connection_timeout had its stream cut without the closing chunk.

connection_timeout = 2 s (sse_keepalive is then 1 s); one worker runs a slow job (test hook
DUCTILED_TEST_ITERATION_DELAY_MS: an event about every 50 ms) while a second job waits for
twice connection_timeout and more with its stream open; then it is cancelled and its stream
must end with job.cancelled and the closing chunk."""
import http.client
import threading
import time

from dtserver import run, started, unit_cube

TIMEOUT = 2


def job_on(mid, increments):
    job = unit_cube()
    del job["mesh"]
    job["mesh_id"] = mid
    for s in job["steps"]:
        s["increments"] = increments
    return job


class Stream(threading.Thread):
    def __init__(self, d, job_id):
        super().__init__(daemon=True)
        self.d, self.job_id = d, job_id
        self.lines, self.end = [], None
        self.start()

    def run(self):
        c = http.client.HTTPConnection("127.0.0.1", self.d.port, timeout=60)
        try:
            c.request("GET", f"/v1/jobs/{self.job_id}/events",
                      headers={"Accept": "text/event-stream", "Authorization": "Bearer " + self.d.token})
            r = c.getresponse()
            assert r.status == 200, r.status
            # read1, not line iteration: a connection closed without the closing chunk
            # raises IncompleteRead here, where readline would see a plain end of file.
            buf = b""
            while chunk := r.read1(65536):
                buf += chunk
                *done, buf = buf.split(b"\n")
                self.lines += [(time.time(), l.decode().rstrip("\r")) for l in done]
            self.end = "clean"
        except http.client.IncompleteRead:
            self.end = "cut: the connection closed without the closing chunk"
        except Exception as e:
            self.end = repr(e)
        finally:
            c.close()


def main(binary):
    env = {"DUCTILED_TEST_ITERATION_DELAY_MS": "50", "DUCTILED_CONNECTION_TIMEOUT": str(TIMEOUT)}
    with started(binary, env) as d:
        mid = d.request("POST", "/v1/meshes", unit_cube()["mesh"]).json["id"]
        busy = d.request("POST", "/v1/jobs", job_on(mid, 100)).json["id"]
        d.wait_job(busy, states=("running",))
        queued = d.request("POST", "/v1/jobs", job_on(mid, 1)).json["id"]
        s = Stream(d, queued)

        wait = 2 * TIMEOUT + 1.5
        t0 = time.time()
        n0 = len(d.poll_events(busy)[0])
        time.sleep(wait)
        n1 = len(d.poll_events(busy)[0])
        assert n1 - n0 > 10 * wait, f"the running job emitted only {n1 - n0} events in {wait} s"
        assert d.request("GET", f"/v1/jobs/{queued}").json["state"] == "queued"
        assert s.end is None, (s.end, s.lines)

        # Keep-alives on the stream's own schedule: no silence as long as connection_timeout.
        keep = [t for t, l in s.lines if l == ": keep-alive" and t >= t0]
        assert len(keep) >= wait / TIMEOUT + 1, f"{len(keep)} keep-alives in {wait} s: {s.lines}"
        marks = [t0] + keep + [time.time()]
        gap = max(b - a for a, b in zip(marks, marks[1:]))
        assert gap < TIMEOUT, f"the stream was silent for {gap:.2f} s"

        assert d.request("POST", f"/v1/jobs/{queued}/cancel").status == 202
        s.join(10)
        events = [l[7:] for _, l in s.lines if l.startswith("event: ")]
        assert s.end == "clean" and events == ["job.queued", "job.cancelled"], (s.end, s.lines)

        assert d.request("POST", f"/v1/jobs/{busy}/cancel").status == 202
        d.wait_job(busy)


if __name__ == "__main__":
    run(main)
