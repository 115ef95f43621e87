"""Stopping explicit jobs, which run for minutes and checkpoint after every frame: a running one
cancelled through the API ends "cancelled" within seconds (the solver looks at the cancel flag
with each explicit.progress, about once a second), keeping the frames it wrote, and the daemon
goes on with the next job; one running at SIGTERM after its first frame is interrupted, the
daemon exits soon with status 0, and at the next start the job resumes from its checkpoint with
the frames it had, rather than start over or fail."""
import tempfile
import time

from dtserver import explicit_job, remove_data_dir, run, started

# About 12 minutes in a Release build; its first frame (and checkpoint) comes at a two-thousandth
# of it, as soon as a short job's: under AddressSanitizer on a busy machine the SIGTERM case
# below waits for that frame.
LONG = explicit_job(period=20.0, frames=2000)


def until_progress(stream):
    """Read the stream up to the first explicit.progress event; returns it."""
    for _, t, d in stream:
        assert t not in ("job.failed", "job.succeeded", "job.cancelled"), (t, d)
        if t == "explicit.progress":
            return d["data"]
    raise AssertionError("the stream ended before an explicit.progress event")


def cancel_running(d, jid, stream, limit=10.0):
    """Cancel the running job; its stream ends with job.cancelled within limit seconds."""
    t0 = time.time()
    r = d.request("POST", f"/v1/jobs/{jid}/cancel")
    assert r.status == 202 and r.json["cancel_requested"] is True, r
    rest = [t for _, t, _ in stream]
    took = time.time() - t0
    assert rest and rest[-1] == "job.cancelled", rest
    assert "job.cancel_requested" in rest, rest
    assert took < limit, f"the cancelled explicit job took {took:.1f} s to stop"
    print(f"cancelled {jid} in {took:.2f} s")
    j = d.request("GET", f"/v1/jobs/{jid}").json
    assert j["state"] == "cancelled" and j["error"]["code"] == "cancelled", j
    return j


def check_kept(d, jid, kept):
    """The frames converged before the cancel keep their results."""
    incs = d.request("GET", f"/v1/jobs/{jid}/results/increments").json["items"]
    assert len(incs) == kept, (incs, kept)
    rows = d.request("GET", f"/v1/jobs/{jid}/results/energy.csv").body.decode().strip().splitlines()
    assert len(rows) == kept + 1, (rows, kept)  # the header, a row per frame
    s = d.request("GET", f"/v1/jobs/{jid}/results").json
    assert s["completed"] is False, s


def main(binary):
    data = tempfile.mkdtemp(prefix="ductiled-explicit-")
    try:
        with started(binary, data_dir=data) as d:
            a = d.request("POST", "/v1/jobs", LONG).json["id"]
            stream = d.sse_stream(a, timeout=120)
            p = until_progress(stream)
            assert 0 < p["percent"] < 50 and p["eta_seconds"] > 0, p
            j = cancel_running(d, a, stream)
            check_kept(d, a, j["progress"]["increments_completed"])
            assert d.request("POST", f"/v1/jobs/{a}/cancel").status == 409

            # The daemon is up and the worker takes the next job.
            assert d.request("GET", "/v1/health").json["status"] == "ok"
            small = d.request("POST", "/v1/jobs", explicit_job(frames=4)).json["id"]
            assert d.wait_job(small, timeout=120)["state"] == "succeeded"

            # SIGTERM while an explicit job runs, after its first frame (its first checkpoint).
            b = d.request("POST", "/v1/jobs", LONG).json["id"]
            for _, t, ev in d.sse_stream(b, timeout=120):
                if t == "increment.converged":
                    break
            t0 = time.time()
        assert time.time() - t0 < 30, "SIGTERM drain took too long"

        with started(binary, data_dir=data) as d:
            stream = d.sse_stream(b, timeout=120)
            seen = {}
            for _, t, ev in stream:
                seen.setdefault(t, ev["data"])
                if t == "job.resumed":
                    break
            intr = seen["job.interrupted"]
            assert "resumes from its checkpoint" in intr["message"], intr
            assert seen["job.recovered"]["checkpoint"] is True, seen["job.recovered"]
            assert seen["job.resumed"]["increments_kept"] >= 1, seen["job.resumed"]
            until_progress(stream)
            ev, _ = d.poll_events(b)
            assert not [e for e in ev if e["type"] in ("job.restarted", "job.failed")], ev
            j = d.request("GET", f"/v1/jobs/{b}").json
            assert j["state"] == "running" and j["attempts"] == 2, j
            cancel_running(d, b, stream)
    finally:
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
