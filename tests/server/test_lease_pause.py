"""A daemon paused past its lease while it runs a job (SIGSTOP, then SIGCONT), with two daemons
sharing one PostgreSQL store and data directory (issue 34). Leases last LEASE seconds.

The paused daemon's lease ends, the other daemon queues the job again and resumes it from its
checkpoint. Once that has happened the paused daemon continues (SIGCONT): at its next renewal,
or at its run's next event, it finds that the job is no longer its run's, and stops that run
within STOP seconds without recording anything (no event, no end, no increment). Checked: exactly
one result, the other daemon's (attempt 2, one job.succeeded, the events one ordered list with
increments 1..20 once each, bit-identical to a run without pause); the resumed daemon's worker is
free again, and takes the next job. Prints the times measured.

What the stale run writes in that moment stays in its own attempt's directory (server/job_dirs.h):
as it stops, the solver writes the summary of its cancelled run, which lands in attempt-1/out,
while the job's results, attempt 2's, have none until the job ends (409 not_ready). In one
directory shared by the attempts that summary was served as the job's while the other daemon ran
it, and the stale run's fields files and checkpoint rename could break the other run (a CI flake:
the other run failed on a missing fields_0005.json). At the end every served file (the fields
and VTU of each increment, history.csv) is bit-identical to the reference run's, and only the
last attempt's directory is left, without its checkpoint."""
import os
import signal
import sys
import tempfile
import time

import dtserver
from dtserver import Daemon, attempt_dir, box_job, remove_data_dir, run
from test_failover import event_time, runner
from test_recovery import check_same_results, wait_increments

LEASE = 3
STOP = 3.0  # the paused daemon stops its run within this after SIGCONT (renewal every second)
TOTAL = 20


def busy(d):
    return [w["busy"] for w in d.request("GET", "/v1/health").json["workers"]]


def check_stale_writes_apart(data, other, jid):
    """Once the stale run has stopped (the other daemon still runs the job): the summary it wrote
    as it stopped is in attempt 1's directory, and what the results route serves is not it: 409
    while the job runs (or, should the job have ended just now, the complete summary of attempt
    2)."""
    stale = os.path.join(attempt_dir(data, jid, 1), "out", "summary.json")
    assert os.path.exists(stale), os.listdir(os.path.dirname(stale))
    r = other.request("GET", f"/v1/jobs/{jid}/results")
    assert (r.status == 409 and r.json["error"]["code"] == "not_ready") or \
        (r.status == 200 and r.json["completed"]), \
        ("the stopped run's summary is served as the job's", r.status, r.body[:300])


def check_identical_files(d, jid, ref, data):
    """Every file the results routes serve for job jid is the reference job's, byte for byte; only
    the last attempt's directory is left, without a checkpoint."""
    for n in range(1, TOTAL + 1):
        for tail in ("", "/vtu"):
            a = d.request("GET", f"/v1/jobs/{jid}/results/increments/{n}{tail}")
            b = d.request("GET", f"/v1/jobs/{ref}/results/increments/{n}{tail}")
            assert a.status == 200 and a.body == b.body, (n, tail, a.status)
    a = d.request("GET", f"/v1/jobs/{jid}/results/history.csv")
    assert a.status == 200 and a.body == d.request("GET", f"/v1/jobs/{ref}/results/history.csv").body
    # the worker removes the other attempts' directories just after the store took the end
    t0 = time.time()
    while (left := sorted(os.listdir(os.path.join(data, "jobs", jid)))) != ["attempt-2", "job.json"]:
        assert time.time() - t0 < 10, left
        time.sleep(0.02)
    assert not os.path.exists(os.path.join(attempt_dir(data, jid, 2), "checkpoint.ckpt"))


def main(binary):
    if not dtserver.PG_INFO:
        print("SKIP: needs PostgreSQL (runs as server_pg_lease_pause)")
        sys.exit(77)
    data = tempfile.mkdtemp(prefix="ductiled-pause-")
    env = {"DUCTILED_LEASE_SECONDS": str(LEASE), "DUCTILED_TEST_ITERATION_DELAY_MS": "60"}
    daemons = []
    job = box_job(9)
    paused = None
    try:
        for k in range(2):
            d = Daemon(binary, env, data_dir=data)
            d.log_path = f"{data}-{k}.log"
            d.instance = f"127.0.0.1:{d.port}"
            d.env["DUCTILED_INSTANCE"] = d.instance
            daemons.append(d.start())
        ref = daemons[0].request("POST", "/v1/jobs", job).json["id"]
        r = daemons[0].wait_job(ref, timeout=240)
        assert r["state"] == "succeeded" and r["attempts"] == 1, r

        jid = daemons[0].request("POST", "/v1/jobs", job).json["id"]
        wait_increments(daemons[0], jid, 3)
        k = runner(daemons, jid)
        paused, other = daemons[k], daemons[1 - k]
        n_before = len(other.poll_events(jid)[0])
        paused.proc.send_signal(signal.SIGSTOP)
        t_stop = time.monotonic()
        t_res = event_time(other, jid, "job.resumed", n_before) - t_stop
        paused.proc.send_signal(signal.SIGCONT)
        t_cont = time.monotonic()
        t0 = time.time()
        while "its run stopped after" not in paused.read_log():
            assert time.time() - t0 < 30, paused.read_log()[-4000:]
            time.sleep(0.02)
        t_lost = time.monotonic() - t_cont
        check_stale_writes_apart(data, other, jid)
        assert t_lost < STOP, f"the paused daemon stopped its run {t_lost:.2f} s after SIGCONT"
        assert busy(paused) == [False], busy(paused)
        assert other.request("GET", f"/v1/jobs/{jid}").json["state"] == "running", \
            "the job ended before the paused daemon continued: make it longer"

        j = other.wait_job(jid, timeout=240)
        assert j["state"] == "succeeded" and j["attempts"] == 2, j
        events, done = other.poll_events(jid)
        seqs, types = [e["seq"] for e in events], [e["type"] for e in events]
        assert done and seqs == list(range(1, len(seqs) + 1)), seqs
        assert types.count("job.started") == 2 and types.count("job.resumed") == 1, types
        assert types[-1] == "job.succeeded" and sum(t in ("job.succeeded", "job.failed", "job.cancelled")
                                                    for t in types) == 1, types
        assert sorted(e["data"]["n"] for e in events if e["type"] == "increment.converged") == \
            list(range(1, TOTAL + 1)), types
        # the events after the take-over are the other daemon's alone: each increment once
        cut = types.index("job.recovered")
        after = [e["data"]["n"] for e in events[cut:] if e["type"] == "increment.converged"]
        assert after == sorted(set(after)), after
        check_same_results(other, jid, ref)
        check_identical_files(other, jid, ref, data)
        assert f"job finished" not in "".join(l for l in paused.read_log().splitlines(True) if jid in l), \
            "the paused daemon recorded an end"
        assert f'job finished' in "".join(l for l in other.read_log().splitlines(True) if jid in l)

        # the resumed daemon's worker takes the next job
        jid2 = paused.request("POST", "/v1/jobs", job).json["id"]
        j2 = paused.wait_job(jid2, timeout=240)
        assert j2["state"] == "succeeded", j2
        print(f"SIGSTOP of the daemon running the job: the other resumed it {t_res:.2f} s later (lease "
              f"{LEASE} s); after SIGCONT the paused daemon stopped its run in {t_lost:.2f} s, recording "
              f"nothing, its files apart in attempt 1's directory; one result (attempt 2), events ordered, "
              f"every result file bit-identical; its worker free")
        for d in daemons:
            assert d.stop() == 0, d.read_log()[-3000:]
    except Exception:
        for k, d in enumerate(daemons):
            sys.stderr.write(f"---- daemon {k} log (tail) ----\n" + d.read_log()[-6000:])
        raise
    finally:
        if paused and paused.proc and paused.proc.poll() is None:
            paused.proc.send_signal(signal.SIGCONT)
        for d in daemons:
            d.cleanup()
            try:
                os.unlink(d.log_path)
            except OSError:
                pass
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
