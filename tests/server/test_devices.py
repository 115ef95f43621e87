"""Devices, workers per entry of `gpus`, and admission by memory.

With gpus = "0,1" there are two workers, each with its ordinal, and two jobs run at once;
/v1/health and /metrics report the device the solver's device query gives (here the CPU
backend: the host, kind "cpu", with its memory). Each job carries the solver's memory
estimate. With max_job_bytes below a job's estimate, submission is refused with 422
does_not_fit (message with the estimate and the limit), and a job that was accepted before
the limit changed fails with does_not_fit when a worker picks it up; a job whose estimate is
exactly the limit is accepted and runs."""
import os
import tempfile
import time

from dtserver import Daemon, attempt_dir, box_job, remove_data_dir, run, started, unit_cube


def main(binary):
    data = tempfile.mkdtemp(prefix="ductiled-devices-")
    env = {"DUCTILED_GPUS": "0,1", "DUCTILED_TEST_ITERATION_DELAY_MS": "40"}
    try:
        with started(binary, env, data_dir=data) as d:
            h = d.request("GET", "/v1/health").json
            assert [(w["index"], w["device"]) for w in h["workers"]] == [(0, 0), (1, 1)], h["workers"]
            assert h["backend_selected"] == "cpu" and h["gpus"] == [] and h["max_job_bytes"] is None, h
            assert len(h["devices"]) == 1, h["devices"]
            dev = h["devices"][0]
            assert dev["kind"] == "cpu" and dev["name"].startswith("CPU") and h["device"] == dev["name"], dev
            assert 0 < dev["memory_free"] <= dev["memory_total"], dev
            text = d.request("GET", "/metrics", token=None).body.decode()
            assert 'ductile_device_memory_bytes{device="0",kind="cpu",' in text and 'state="total"}' in text, text
            assert 'state="free"}' in text, text

            # Two workers: two jobs run at the same time, one on each.
            a = d.request("POST", "/v1/jobs", unit_cube()).json
            b = d.request("POST", "/v1/jobs", unit_cube()).json
            est = a["memory_estimate_bytes"]
            assert est > 0 and b["memory_estimate_bytes"] == est, (a, b)
            workers = set()
            for j in (a, b):
                assert d.wait_job(j["id"])["state"] == "succeeded"
                ev, _ = d.poll_events(j["id"])
                workers |= {e["data"]["worker"] for e in ev if e["type"] == "job.started"}
            assert workers == {0, 1}, workers

            # Bigger jobs, accepted now: two start, one waits; then the daemon stops.
            big = [d.request("POST", "/v1/jobs", box_job(3, (6, 6))).json for _ in range(3)]
            assert all(j["memory_estimate_bytes"] > est for j in big), big
            t0 = time.time()
            while d.request("GET", "/v1/health").json["jobs"]["running"] < 2:
                assert time.time() - t0 < 60
                time.sleep(0.02)

        # max_job_bytes = the unit cube's estimate: the big jobs no longer fit.
        with started(binary, dict(env, DUCTILED_MAX_JOB_BYTES=str(est)), data_dir=data) as d:
            assert d.request("GET", "/v1/health").json["max_job_bytes"] == est
            r = d.request("POST", "/v1/jobs", box_job(3, (6, 6)))
            assert r.status == 422 and r.json["error"]["code"] == "does_not_fit", r
            e = r.json["error"]
            assert e["details"]["limit_bytes"] == est and e["details"]["estimate_bytes"] > est, e
            assert "max_job_bytes" in e["message"] and f"({est} bytes)" in e["message"], e
            assert "%.0f bytes" % e["details"]["estimate_bytes"] in e["message"], e
            for j in big:  # accepted earlier: refused by the worker, before any solving
                f = d.wait_job(j["id"], timeout=60)
                assert f["state"] == "failed" and f["error"]["code"] == "does_not_fit", f
                assert not os.path.exists(os.path.join(attempt_dir(data, j["id"]), "checkpoint.ckpt"))
            ok = d.request("POST", "/v1/jobs", unit_cube())
            assert ok.status == 201, ok
            assert d.wait_job(ok.json["id"])["state"] == "succeeded"

        bad = Daemon(binary, {"DUCTILED_MAX_JOB_BYTES": "-1"}, data_dir=data).cli("token", "list")
        assert bad.returncode == 78 and "max_job_bytes" in bad.stderr, bad
    finally:
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
