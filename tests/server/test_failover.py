"""kill -9 of the daemon that runs a job, with three daemons sharing one PostgreSQL store and one
data directory (issue 34). Leases last LEASE seconds (lease_seconds), renewed every second by
the daemon that holds them.

The job (box_job: 20 increments, a few seconds on the CPU backend) runs on whichever daemon
claimed it; once 5 increments have converged that daemon is killed with SIGKILL. Checked: one of
the two survivors queues the job again once the lease has ended (job.recovered: the lease ended,
checkpoint true) and one of them resumes it from its checkpoint on the shared data directory
(job.resumed) within LEASE + 1.5 seconds of the kill (at most LEASE, a quarter of a second
and a claim, with some room for a busy machine); only the increments after the checkpoint are
computed again; the events stay one ordered list (seq 1, 2, ...); and the result is bit for bit
that of the same job run without interruption (fields, VTU files, summary: test_recovery's
check). A daemon that stops with SIGTERM ends its leases as it drains: its interrupted job is
taken up by another daemon at once, not after the lease. Prints the times measured."""
import os
import signal
import sys
import tempfile
import time

import dtserver
from dtserver import Daemon, box_job, remove_data_dir, run
from test_recovery import check_resumed, check_same_results, wait_increments

LEASE = 3


def runner(daemons, jid):
    """The index of the daemon whose worker runs the job (the lease's holder)."""
    rows = daemons[0].sql(f"SELECT lease_owner FROM jobs WHERE id = '{jid}' AND state = 'running'")
    assert rows and rows[0][0], rows
    for k, d in enumerate(daemons):
        if d.instance == rows[0][0]:
            return k
    raise AssertionError(f"no daemon is {rows[0][0]}")


def event_time(d, jid, etype, after=0):
    """When (monotonic, polled) the job's event etype first appears after its first `after`."""
    t0 = time.time()
    while True:
        events, _ = d.poll_events(jid)
        if any(e["type"] == etype for e in events[after:]):
            return time.monotonic()
        assert time.time() - t0 < 60, (etype, [e["type"] for e in events])
        time.sleep(0.02)


def main(binary):
    if not dtserver.PG_INFO:
        print("SKIP: needs PostgreSQL (runs as server_pg_failover)")
        sys.exit(77)
    data = tempfile.mkdtemp(prefix="ductiled-failover-")
    env = {"DUCTILED_LEASE_SECONDS": str(LEASE), "DUCTILED_TEST_ITERATION_DELAY_MS": "20"}
    daemons = []
    job = box_job(9)
    try:
        for k in range(3):
            d = Daemon(binary, env, data_dir=data)
            d.log_path = f"{data}-{k}.log"
            d.instance = f"127.0.0.1:{d.port}"
            d.env["DUCTILED_INSTANCE"] = d.instance
            daemons.append(d.start())
        ref = daemons[0].request("POST", "/v1/jobs", job).json["id"]
        r = daemons[0].wait_job(ref, timeout=240)
        assert r["state"] == "succeeded" and r["attempts"] == 1, r

        # kill -9 of the daemon running the job
        jid = daemons[1].request("POST", "/v1/jobs", job).json["id"]
        wait_increments(daemons[1], jid, 5)
        k = runner(daemons, jid)
        victim = daemons[k]
        survivor = daemons[(k + 1) % 3]
        n_before = len(survivor.poll_events(jid)[0])
        victim.proc.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        victim.proc.wait()
        victim.log.close()
        t_rec = event_time(survivor, jid, "job.recovered", n_before) - killed
        t_res = event_time(survivor, jid, "job.resumed", n_before) - killed
        kept, before = check_resumed(survivor, jid, "job.recovered")
        assert before >= 5 and before <= kept <= before + 1, (kept, before)
        rec = [e for e in survivor.poll_events(jid)[0] if e["type"] == "job.recovered"][0]["data"]
        assert "lease" in rec["message"], rec
        assert t_res < LEASE + 1.5, f"resumed {t_res:.1f} s after the kill (lease {LEASE} s)"
        k2 = [i for i, d in enumerate(daemons)
              if f'running job (attempt 2)" job={jid}' in d.read_log()]
        assert len(k2) == 1 and daemons[k2[0]] is not victim, k2
        print(f"kill -9 of daemon {k}: job queued again after {t_rec:.2f} s, resumed after {t_res:.2f} s "
              f"(lease {LEASE} s) on daemon {k2}; {before} increments converged before the kill, {kept} "
              f"kept, {20 - kept} computed after")
        check_same_results(survivor, jid, ref)

        # SIGTERM: the drain ends the leases, another daemon takes the job at once
        alive = [d for d in daemons if d is not victim]
        jid2 = alive[0].request("POST", "/v1/jobs", job).json["id"]
        wait_increments(alive[0], jid2, 5)
        k = runner(daemons, jid2)
        stopping = daemons[k]
        other = [d for d in alive if d is not stopping][0]
        n_before = len(other.poll_events(jid2)[0])
        t0 = time.monotonic()
        assert stopping.stop() == 0, stopping.read_log()[-3000:]
        t_res2 = event_time(other, jid2, "job.resumed", n_before) - t0
        kept2, before2 = check_resumed(other, jid2, "job.interrupted")
        assert kept2 == before2 >= 5, (kept2, before2)
        check_same_results(other, jid2, ref)
        print(f"SIGTERM of daemon {k}: job resumed by another daemon {t_res2:.2f} s after the signal "
              f"(drain included), {kept2} increments kept")
        assert t_res2 < LEASE + 10
        for d in daemons:
            if d is not victim and d is not stopping:
                assert d.stop() == 0, d.read_log()[-3000:]
    except Exception:
        for k, d in enumerate(daemons):
            sys.stderr.write(f"---- daemon {k} log (tail) ----\n" + d.read_log()[-6000:])
        raise
    finally:
        for d in daemons:
            d.cleanup()
            try:
                os.unlink(d.log_path)
            except OSError:
                pass
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
