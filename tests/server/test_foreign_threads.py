"""The daemon's signals reach it while it drains though a library started threads before main
(server/main.c, hand_on): ductiled preloaded with foreign_threads.so, whose four threads start as
it loads with no signal blocked, as OpenBLAS's pool does (CHOLMOD loads it where Debian's
libblas.so.3 is OpenBLAS). While the daemon waits in sigwait a signal goes to that thread, but
while it drains (sigwait has returned) the kernel gives it to a thread that does not block it:
here only the four do, and without the hand-on the signal's default action ends the daemon at
once (exit -10 or -15, no drain, no restart).

On the 20-increment box job, iterations slowed to 50 ms (test hook) so that a drain lasts:
  (a) SIGUSR1 mid-job, a second SIGUSR1 during its drain: the daemon restarts in place once (the
      same process, one more "listening" line) and the job resumes and succeeds;
  (b) SIGTERM mid-job, a second SIGTERM during the drain: it exits with status 0 after
      "received SIGTERM: draining", the job interrupted (job.interrupted).

Usage: test_foreign_threads.py DUCTILED FOREIGN_THREADS_SO"""
import os
import signal
import sys
import time

from dtserver import box_job, run, started


def wait_running(d, jid):
    t0 = time.time()
    while d.request("GET", f"/v1/jobs/{jid}").json["progress"]["increments_completed"] < 2:
        assert time.time() - t0 < 120, "the job made no progress"
        time.sleep(0.01)


def signal_twice(d, sig, name):
    """sig, then sig again once the daemon has logged that it drains."""
    seen = d.read_log().count(f"received {name}")
    d.proc.send_signal(sig)
    t0 = time.time()
    while d.read_log().count(f"received {name}") == seen:
        assert d.proc.poll() is None, f"ended by {name} (status {d.proc.returncode})"
        assert time.time() - t0 < 30, d.read_log()[-4000:]
        time.sleep(0.005)
    d.proc.send_signal(sig)


def main(binary):
    env = {"LD_PRELOAD": os.path.abspath(sys.argv[2]), "DUCTILED_TEST_ITERATION_DELAY_MS": "50",
           # an ASan build wants its runtime first in the library list; this library is harmless
           "ASAN_OPTIONS": ":".join(x for x in (os.environ.get("ASAN_OPTIONS"),
                                                 "verify_asan_link_order=0") if x)}
    with started(binary, env) as d:
        pid, listening = d.proc.pid, d.listening_count()
        jid = d.request("POST", "/v1/jobs", box_job(9)).json["id"]
        wait_running(d, jid)
        signal_twice(d, signal.SIGUSR1, "SIGUSR1")
        d.wait_restarted(listening, timeout=60)
        time.sleep(0.5)
        assert d.proc.poll() is None and d.proc.pid == pid, f"status {d.proc.returncode}"
        assert d.listening_count() == listening + 1, "restarted more than once"
        assert d.wait_job(jid, timeout=240)["state"] == "succeeded"
        print(f"SIGUSR1 twice: restarted in place once (pid {pid}), the job succeeded")
        jid = d.request("POST", "/v1/jobs", box_job(9)).json["id"]
        wait_running(d, jid)
        signal_twice(d, signal.SIGTERM, "SIGTERM")
        d.proc.wait(60)
        log = d.read_log()
        assert d.proc.returncode == 0, f"SIGTERM twice: status {d.proc.returncode}\n" + log[-4000:]
        assert "job " + jid + " interrupted by shutdown" in log, log[-4000:]
        print("SIGTERM twice: drained, status 0, the job interrupted")


if __name__ == "__main__":
    run(main)
