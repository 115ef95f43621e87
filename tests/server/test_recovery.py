"""Crash safety with checkpoints, on a 20-increment job that takes a few seconds (box_job).

kill -9 in the middle of the job: the database passes PRAGMA integrity_check; the next start
re-queues the job (job.recovered, checkpoint: true), the worker resumes it from its
checkpoint (job.resumed: "resumed from checkpoint: ... N increments kept (not recomputed)")
and computes only the increments after the N kept ones (the increment.converged events after
the restart are exactly N+1 .. 20, and N covers every increment announced before the kill:
the worker announces an increment once its checkpoint is written); the result equals, bit for bit, that of the same job run
without interruption. SIGTERM in the middle of a job: exit 0 within seconds, the increment
that was running is abandoned at its next Newton iteration (job.interrupted), and the next
start resumes from the last converged increment: nothing converged is recomputed. SIGUSR1 in
the middle of a job: the same drain, then the daemon starts afresh in the same process (the
restart a worker asks for when its GPU faults, tests/server/test_daemon_gpu.py): same pid, a
second "listening", the job interrupted ("restarting") and resumed from its checkpoint, with
the same results. A crash between an increment's checkpoint and its announcement (test hook
test_exit_after_checkpoint): the next attempt announces that increment (data.recovered) before
resuming, so every increment is announced once. A data directory of before schema version 9
(each job's files in its own directory rather than one per attempt): ended jobs are served from
there, and a job killed while it ran resumes from its checkpoint there."""
import os
import signal
import sqlite3
import tempfile
import time

import dtserver
from dtserver import Daemon, attempt_dir, box_job, remove_data_dir, run, started

TOTAL = 20


def wait_increments(d, jid, n):
    t0 = time.time()
    while True:
        j = d.request("GET", f"/v1/jobs/{jid}").json
        assert j["state"] == "running" or j["state"] == "queued", j
        if j["progress"]["increments_completed"] >= n:
            return
        assert time.time() - t0 < 120, "the job made no progress"
        time.sleep(0.01)


def integrity(data):
    if dtserver.STORE != "sqlite":
        return  # PostgreSQL checks its own pages; nothing for the test to ask
    con = sqlite3.connect(os.path.join(data, "ductile.db"))
    try:
        res = con.execute("PRAGMA integrity_check").fetchall()
    finally:
        con.close()
    assert res == [("ok",)], res


def converged_n(events):
    return [e[2]["data"]["n"] for e in events if e[1] == "increment.converged"]


def check_resumed(d, jid, cut_type):
    """The job succeeded on its second attempt, resumed from its checkpoint; returns the
    number of increments the checkpoint kept and those converged before the cut."""
    j = d.wait_job(jid, timeout=240)
    assert j["state"] == "succeeded" and j["attempts"] == 2, j
    assert j["progress"]["increments_completed"] == TOTAL, j
    ev = d.sse(jid)
    seqs, types = [e[0] for e in ev], [e[1] for e in ev]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    assert types.count("job.started") == 2 and types[-1] == "job.succeeded", types
    assert "job.restarted" not in types, types
    assert all("residual" in e[2]["data"] for e in ev if e[1] == "newton.iteration"), ev
    cut = types.index(cut_type)
    rec = ev[types.index("job.recovered")][2]["data"]
    assert rec["checkpoint"] is True and "resumes from its checkpoint" in rec["message"], rec
    res = ev[types.index("job.resumed")][2]["data"]
    kept = res["increments_kept"]
    assert res["resumed"] is True and res["attempt"] == 2, res
    assert res["message"].startswith("resumed from checkpoint: step "), res
    assert f"{kept} increments kept (not recomputed)" in res["message"], res
    before, after = converged_n(ev[:cut]), converged_n(ev[cut:])
    assert before == list(range(1, len(before) + 1)), before
    # An increment checkpointed but not yet announced when the run stopped is announced by the
    # next attempt before it resumes (data.recovered), from the kept history row: every
    # increment is announced once, whichever attempt ran it.
    recovered = [e[2]["data"]["n"] for e in ev[cut:]
                 if e[1] == "increment.converged" and e[2]["data"].get("recovered")]
    assert recovered == list(range(len(before) + 1, kept + 1)), (before, kept, recovered)
    # Only what follows the checkpoint is computed again.
    assert after == recovered + list(range(kept + 1, TOTAL + 1)), (kept, after)
    assert sorted(converged_n(ev)) == list(range(1, TOTAL + 1)), converged_n(ev)
    return kept, len(before)


def check_same_results(d, a, b):
    """Job a (interrupted) and job b (not) have bit-identical results."""
    sa = d.request("GET", f"/v1/jobs/{a}/results").json
    sb = d.request("GET", f"/v1/jobs/{b}/results").json
    assert sa["completed"] and sb["completed"]
    for k in ("increments", "max_u", "max_mises", "max_peeq", "node_sets", "n_increments", "newton_iterations"):
        assert sa[k] == sb[k], (k, sa[k], sb[k])
    assert abs(sa["increments"][-1]["monitors"]["uz_top"] - 5.272727e-3) < 1e-8, sa["increments"][-1]
    ia = d.request("GET", f"/v1/jobs/{a}/results/increments").json["items"]
    ib = d.request("GET", f"/v1/jobs/{b}/results/increments").json["items"]
    assert [i["n"] for i in ia] == list(range(1, TOTAL + 1)) and all(i["vtu"] for i in ia), ia
    assert [(i["step"], i["increment"], i["load_factor"]) for i in ia] == \
        [(i["step"], i["increment"], i["load_factor"]) for i in ib]
    for n in (1, TOTAL // 2, TOTAL):
        fa = d.request("GET", f"/v1/jobs/{a}/results/increments/{n}").json
        fb = d.request("GET", f"/v1/jobs/{b}/results/increments/{n}").json
        for k in ("U", "RF", "S", "PEEQ"):
            assert fa[k] == fb[k], (n, k)
        va = d.request("GET", f"/v1/jobs/{a}/results/increments/{n}/vtu").body
        assert va == d.request("GET", f"/v1/jobs/{b}/results/increments/{n}/vtu").body, n
    ha = d.request("GET", f"/v1/jobs/{a}/results/history.csv").body.decode().splitlines()
    assert len(ha) == TOTAL + 1, ha


def check_no_restarts(d):
    rs = d.request("GET", "/v1/health").json["restarts"]
    assert rs == {"count": 0, "last_at": None, "last_reason": None}, rs


def to_layout_before_v9(data, jid):
    """Move the files of job jid's first attempt to where a daemon before schema version 9 kept
    them, the job's directory itself, and forget the attempt in the store (server/job_dirs.h)."""
    first, job = attempt_dir(data, jid, 1), os.path.join(data, "jobs", jid)
    for f in os.listdir(first):  # out/, checkpoint.ckpt, a checkpoint.ckpt.tmp the kill cut short
        os.rename(os.path.join(first, f), os.path.join(job, f))
    os.rmdir(first)
    dtserver.sql(data, f"UPDATE jobs SET results_attempt = NULL WHERE id = '{jid}'")


def killed_mid_job(binary, data, job):
    """A daemon on data runs job and is killed (SIGKILL) once 5 increments are done: the job's id."""
    d = Daemon(binary, data_dir=data).start()
    jid = d.request("POST", "/v1/jobs", job).json["id"]
    wait_increments(d, jid, 5)
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait()
    d.log.close()
    return jid


def check_layout_before_v9(binary, data, job, ref):
    """A data directory of before schema version 9, whose jobs keep their files in their own
    directory: an ended job is served from there (ref), a job killed while it ran resumes from its
    checkpoint there, and once it has ended only its second attempt's directory is left."""
    jid = killed_mid_job(binary, data, job)
    to_layout_before_v9(data, jid)
    to_layout_before_v9(data, ref)
    with started(binary, data_dir=data) as d:
        kept, before = check_resumed(d, jid, "job.recovered")
        assert before >= 5 and before <= kept <= before + 1, (kept, before)
        check_same_results(d, jid, ref)
        t0 = time.time()  # the worker removes the old files just after the store took the end
        while (left := sorted(os.listdir(os.path.join(data, "jobs", jid)))) != ["attempt-2", "job.json"]:
            assert time.time() - t0 < 10, left
            time.sleep(0.02)
        assert not os.path.exists(os.path.join(attempt_dir(data, jid, 2), "checkpoint.ckpt"))
        print(f"layout of before version 9: an ended job served from its directory, a killed one "
              f"resumed from its checkpoint there ({kept} increments kept)")


def check_restart_in_place(d, job, ref):
    """SIGUSR1 mid-job: drain, start afresh in the same process, resume the job."""
    check_no_restarts(d)
    jid = d.request("POST", "/v1/jobs", job).json["id"]
    wait_increments(d, jid, 5)
    pid, listening = d.proc.pid, d.listening_count()
    received = d.read_log().count("received SIGUSR1")
    d.proc.send_signal(signal.SIGUSR1)
    t0 = time.time()
    while d.read_log().count("received SIGUSR1") == received:
        assert time.time() - t0 < 30, d.read_log()
        time.sleep(0.005)
    # A second one during the drain (the running increment takes a few 50 ms iterations) asks
    # for the same restart: it must not make the restarted daemon restart again.
    d.proc.send_signal(signal.SIGUSR1)
    d.wait_restarted(listening, timeout=30)
    time.sleep(1.0)
    assert d.listening_count() == listening + 1, "restarted more than once:\n" + d.read_log()
    assert d.proc.poll() is None and d.proc.pid == pid
    log = d.read_log()
    assert "received SIGUSR1" in log and "restarting" in log, log
    rs = d.request("GET", "/v1/health").json["restarts"]
    assert rs["count"] == 1 and "SIGUSR1" in rs["last_reason"] and rs["last_at"].endswith("Z"), rs
    kept, before = check_resumed(d, jid, "job.interrupted")
    assert kept == before >= 5, (kept, before)
    ev, _ = d.poll_events(jid)
    intr = [e for e in ev if e["type"] == "job.interrupted"][0]["data"]
    assert intr["increments_completed"] == kept and "restarting" in intr["message"], intr
    check_same_results(d, jid, ref)
    print(f"SIGUSR1: restarted in place (pid {pid}), {kept} increments kept, {TOTAL - kept} computed after")


def main(binary):
    data = tempfile.mkdtemp(prefix="ductiled-recovery-")
    job = box_job(9)
    try:
        # kill -9 in the middle of the job.
        jid = killed_mid_job(binary, data, job)
        assert os.path.exists(os.path.join(attempt_dir(data, jid, 1), "checkpoint.ckpt"))
        integrity(data)
        with started(binary, data_dir=data) as d2:
            kept, before = check_resumed(d2, jid, "job.recovered")
            # An increment is announced converged once its checkpoint exists, so nothing announced
            # is recomputed; the kill may fall after a checkpoint and before its announcement,
            # which the next attempt then makes (check_resumed).
            assert before >= 5 and before <= kept <= before + 1, (kept, before)
            print(f"kill -9: {before} increments converged before the kill, {kept} kept, {TOTAL - kept} computed after")
            # the job's end removes the checkpoint and the first attempt's directory
            assert not os.path.exists(os.path.join(attempt_dir(data, jid, 2), "checkpoint.ckpt"))
            assert not os.path.exists(attempt_dir(data, jid, 1))
            ref = d2.request("POST", "/v1/jobs", job).json["id"]
            r = d2.wait_job(ref, timeout=240)
            assert r["state"] == "succeeded" and r["attempts"] == 1, r
            check_same_results(d2, jid, ref)

            # SIGTERM in the middle of a job: exit 0 soon, job interrupted, resumed next time.
            jid2 = d2.request("POST", "/v1/jobs", job).json["id"]
            wait_increments(d2, jid2, 5)
            t0 = time.time()
        assert time.time() - t0 < 30, "SIGTERM drain took too long"
        integrity(data)
        with started(binary, data_dir=data) as d3:
            kept, before = check_resumed(d3, jid2, "job.interrupted")
            assert kept == before >= 5, (kept, before)  # the running increment was abandoned, none lost
            print(f"SIGTERM: {kept} increments kept, {TOTAL - kept} computed after the restart")
            ev, _ = d3.poll_events(jid2)
            intr = [e for e in ev if e["type"] == "job.interrupted"][0]["data"]
            assert intr["increments_completed"] == kept, intr
            check_same_results(d3, jid2, ref)
            h = d3.request("GET", "/v1/health").json
            assert h["jobs"]["succeeded"] == 3 and h["queue_depth"] == 0, h
        integrity(data)
        with started(binary, {"DUCTILED_TEST_ITERATION_DELAY_MS": "50"}, data_dir=data) as d4:
            check_restart_in_place(d4, job, ref)
            h = d4.request("GET", "/v1/health").json
            assert h["jobs"]["succeeded"] == 4 and h["queue_depth"] == 0, h
        integrity(data)
        # A crash in the gap between an increment's checkpoint and its announcement (the test
        # hook exits there once increment 5 is checkpointed): the next attempt announces it
        # (recovered) before it resumes after it.
        d5 = Daemon(binary, {"DUCTILED_TEST_EXIT_AFTER_CHECKPOINT": "5"}, data_dir=data).start()
        jid3 = d5.request("POST", "/v1/jobs", job).json["id"]
        assert d5.proc.wait(timeout=120) == 137, d5.read_log()[-2000:]
        d5.log.close()
        with started(binary, data_dir=data) as d6:
            kept, before = check_resumed(d6, jid3, "job.recovered")
            assert (before, kept) == (4, 5), (before, kept)
            check_same_results(d6, jid3, ref)
            print("a crash between checkpoint 5 and its announcement: increment 5 announced by the "
                  "next attempt (recovered), 6-20 computed")
        integrity(data)
        check_layout_before_v9(binary, data, job, ref)
        integrity(data)
    finally:
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
