"""Crash safety. kill -9 while a job runs: the next start finds it running, re-queues it and
says so in its events ("restarted from the beginning: no checkpoint" until the solver can
restore a checkpoint), and it completes with the right answer; event seqs continue without
gap or duplicate. SIGTERM while a job runs: the running increment finishes, the daemon exits
0, the job is marked interrupted and completes after the next start."""
import os
import shutil
import signal
import tempfile
import time

from dtserver import Daemon, run, started, unit_cube


def slow_job():
    job = unit_cube()
    for s in job["steps"]:
        s["increments"] = 8
    return job


def wait_increments(d, jid, n):
    t0 = time.time()
    while d.request("GET", f"/v1/jobs/{jid}").json["progress"]["increments_completed"] < n:
        assert time.time() - t0 < 60
        time.sleep(0.02)


def check_finished(d, jid, expect_types):
    j = d.wait_job(jid, timeout=120)
    assert j["state"] == "succeeded" and j["attempts"] == 2, j
    ev = d.sse(jid)
    seqs, types = [e[0] for e in ev], [e[1] for e in ev]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    for t in expect_types:
        assert t in types, (t, types)
    assert types.count("job.started") == 2 and types[-1] == "job.succeeded"
    s = d.request("GET", f"/v1/jobs/{jid}/results").json
    assert abs(s["increments"][-1]["monitors"]["uz_top"] - 5.272727e-3) < 1e-9
    incs = d.request("GET", f"/v1/jobs/{jid}/results/increments").json["items"]
    assert [i["n"] for i in incs] == list(range(1, 25)), incs
    return ev


def main(binary):
    env = {"DUCTILED_TEST_ITERATION_DELAY_MS": "60"}
    data = tempfile.mkdtemp(prefix="ductiled-recovery-")
    try:
        # kill -9 in the middle of a job.
        d1 = Daemon(binary, env, data_dir=data).start()
        jid = d1.request("POST", "/v1/jobs", slow_job()).json["id"]
        wait_increments(d1, jid, 2)
        d1.proc.send_signal(signal.SIGKILL)
        d1.proc.wait()
        d1.log.close()
        with started(binary, env, data_dir=data) as d2:
            ev = check_finished(d2, jid, ["job.recovered", "job.restarted"])
            rec = [e for e in ev if e[1] == "job.recovered"][0][2]["data"]
            assert rec["resumed"] is False and "restarted from the beginning: no checkpoint" in rec["message"], rec

            # SIGTERM in the middle of a job: exit 0 soon, job interrupted, finished next time.
            jid2 = d2.request("POST", "/v1/jobs", slow_job()).json["id"]
            wait_increments(d2, jid2, 2)
            t0 = time.time()
        assert time.time() - t0 < 10, "SIGTERM drain took too long"
        with started(binary, env, data_dir=data) as d3:
            check_finished(d3, jid2, ["job.interrupted", "job.recovered"])
            r = d3.request("GET", "/v1/health").json
            assert r["jobs"]["succeeded"] == 2 and r["queue_depth"] == 0
    finally:
        shutil.rmtree(data, ignore_errors=True)
        if os.path.exists(data + ".log"):
            os.unlink(data + ".log")


if __name__ == "__main__":
    run(main)
