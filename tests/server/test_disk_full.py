"""Defect 5: a full disk while a job ends. The store's write of the end fails (SQLite's
"database or disk is full": simulated by the test hook test_disk_full_at_end = 3, so the first
three attempts to record an end fail that way; worker_ends.h). Before the fix the job stayed
`running` for good with its worker idle: a cancel answered 202 and did nothing, a delete 409,
until a restart.

Now the worker keeps the end and goes on: the next job starts while the first one's end is not
recorded yet, the store takes the end once it can (here: at the fourth attempt, a second or two
later), and the job ends `failed` with code disk_full and a message that names the disk and
says what the run had come to; its terminal event says the same. The first job is then a
finished job like any other (cancel 409 job_finished, delete 204), the second succeeds, the
worker is idle, and the daemon stops cleanly."""
import time

from dtserver import run, started, unit_cube


def main(binary):
    env = {"DUCTILED_TEST_DISK_FULL_AT_END": "3", "DUCTILED_TEST_ITERATION_DELAY_MS": "100"}
    with started(binary, env) as d:
        first = d.request("POST", "/v1/jobs", unit_cube()).json["id"]
        second = d.request("POST", "/v1/jobs", unit_cube()).json["id"]

        j1 = d.wait_job(first, timeout=240)
        print("first job:", j1["state"], j1["error"])
        assert j1["state"] == "failed", j1
        assert j1["error"]["code"] == "disk_full", j1
        msg = j1["error"]["message"]
        assert msg.startswith("the disk of the daemon's data directory is full"), msg
        assert "(succeeded: " in msg and "recorded as failed" in msg, msg
        assert "database or disk is full" in msg, msg
        ev, done = d.poll_events(first)
        assert done and ev[-1]["type"] == "job.failed", ev[-1]
        assert ev[-1]["data"]["code"] == "disk_full" and ev[-1]["data"]["increments_completed"] == 3, ev[-1]
        assert [e["seq"] for e in ev] == list(range(1, len(ev) + 1))

        j2 = d.wait_job(second, timeout=240)
        assert j2["state"] == "succeeded", j2
        # The worker was free while the first job's end waited for the store.
        assert j2["started_at"] < j1["finished_at"], (j2["started_at"], j1["finished_at"])

        # The first job is finished like any other.
        r = d.request("POST", f"/v1/jobs/{first}/cancel")
        assert r.status == 409 and r.json["error"]["code"] == "job_finished", r
        r = d.request("DELETE", f"/v1/jobs/{first}")
        assert r.status == 204, r
        t0 = time.time()
        while d.request("GET", "/v1/health").json["workers"][0]["busy"]:
            assert time.time() - t0 < 60, "the worker stays busy"
            time.sleep(0.05)
        log = d.read_log()
        assert "cannot record the job's end (succeeded, attempt 1)" in log, log[-3000:]
        assert "the job's end is recorded (failed: disk_full) at attempt" in log, log[-3000:]


if __name__ == "__main__":
    run(main)
