"""PostgreSQL restarts under a running daemon (issue 34): the daemon stays up, answers while the
database is away with a clear error in bounded time, and loses nothing.

The test starts a PostgreSQL cluster of its own (pgcluster.py; the one the other server_pg_*
tests share must not stop under them), a daemon on it with lease_seconds LEASE, and three jobs
(box_job: 20 increments; one worker, so one runs and two wait). Once the first has converged a
few increments, clients poll the job and its events without pause and one follows its event
stream (SSE); then PostgreSQL stops with a fast shutdown (every session ends at once) and stays
down OUTAGE seconds, longer than a lease, before it starts again on the same port. Checked:

- the daemon never exits; every request during the outage is answered 503 store_unavailable
  whose message names the database (postgresql), none takes longer than BOUND seconds;
- requests succeed again within RECOVER seconds of the restart (stale pooled connections are
  replaced, not answered 503);
- the running job keeps its lease (attempt 1: the daemon renews its own leases before it looks
  for expired ones) and every job succeeds once, with its events one ordered list (seq 1, 2,
  ..., one job.started, increments 1..20, one terminal event) and bit-identical results;
- the event stream stays open across the outage or ends cleanly, and resuming it from its last
  event id (Last-Event-ID) gives exactly the polled events.

Prints the outage, the time to recover and the requests answered 503."""
import os
import sys
import tempfile
import threading
import time

import dtserver
import pgcluster
from dtserver import Daemon, box_job, run, validate
from test_recovery import check_same_results, wait_increments

LEASE = 3
OUTAGE = 4.0  # seconds PostgreSQL stays down: longer than a lease
BOUND = 5.0  # the longest a request may take while the database is away (connect_timeout 3 s)
RECOVER = 3.0  # requests succeed again within this after the restart
TOTAL = 20


class Poller(threading.Thread):
    """GET of the job, then of its events after the last seen, again and again; every answer
    kept as (start, end, status, body)."""

    def __init__(self, d, jid):
        super().__init__(daemon=True)
        self.d, self.jid, self.answers, self.stop, self.errors = d, jid, [], False, []

    def run(self):
        after = 0
        while not self.stop:
            for path in (f"/v1/jobs/{self.jid}", f"/v1/jobs/{self.jid}/events?after={after}"):
                t0 = time.monotonic()
                try:
                    r = self.d.request("GET", path, check=False, timeout=30)
                except OSError as e:  # a refused or reset connection: the daemon is gone
                    self.errors.append(f"{path}: {e!r}")
                    continue
                self.answers.append((t0, time.monotonic(), r.status, r.body))
                if r.status == 200 and "events" in r.json and r.json["events"]:
                    after = r.json["next_after"]
            time.sleep(0.02)


class Follower(threading.Thread):
    """Follows the job's event stream to its terminal event, resuming from the last event id
    (Last-Event-ID) when a stream ends before it."""

    def __init__(self, d, jid):
        super().__init__(daemon=True)
        self.d, self.jid, self.events, self.streams, self.refused, self.failure = d, jid, [], 0, 0, None

    def run(self):
        try:
            t0 = time.time()
            while not self.events or self.events[-1][1] not in ("job.succeeded", "job.failed", "job.cancelled"):
                assert time.time() - t0 < 240, "the stream did not end"
                last = self.events[-1][0] if self.events else None
                self.streams += 1
                try:
                    for e in self.d.sse_stream(self.jid, last_event_id=last, timeout=30):
                        self.events.append(e)
                except AssertionError:  # 503 while the database is away: resume after a pause
                    self.refused += 1
                    time.sleep(0.2)
                except OSError:  # the stream ended without its last chunk
                    time.sleep(0.2)
        except Exception as e:
            self.failure = e


def check_events(d, jid):
    events, done = d.poll_events(jid)
    assert done, events[-1:]
    seqs, types = [e["seq"] for e in events], [e["type"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    assert types.count("job.started") == 1 and types[-1] == "job.succeeded", types
    assert sum(t in ("job.succeeded", "job.failed", "job.cancelled") for t in types) == 1, types
    assert not {"job.recovered", "job.resumed", "job.restarted"} & set(types), types
    assert [e["data"]["n"] for e in events if e["type"] == "increment.converged"] == list(range(1, TOTAL + 1))
    return events


def main(binary):
    if not dtserver.PG_INFO:
        print("SKIP: needs PostgreSQL (runs as server_pg_outage)")
        sys.exit(77)
    top = tempfile.mkdtemp(prefix="ductiled-outage-")
    info_path = os.path.join(top, "pg.json")
    info = pgcluster.start(info_path)
    dtserver.PG_INFO = info_path  # this test's cluster, which it stops and starts
    d = None
    try:
        d = Daemon(binary, {"DUCTILED_LEASE_SECONDS": str(LEASE), "DUCTILED_TEST_ITERATION_DELAY_MS": "30",
                            "DUCTILED_RATE_LIMIT": "0"})  # the pollers ask without pause
        d.start()
        job = box_job(9)
        jids = [d.request("POST", "/v1/jobs", job).json["id"] for _ in range(3)]
        wait_increments(d, jids[0], 3)
        pollers = [Poller(d, jids[0]), Poller(d, jids[1])]
        follower = Follower(d, jids[0])
        for t in pollers + [follower]:
            t.start()
        time.sleep(0.5)

        t_down0 = time.monotonic()
        pgcluster.server_down(info)
        t_down = time.monotonic()
        time.sleep(OUTAGE)
        t_up0 = time.monotonic()
        pgcluster.server_up(info)
        t_up = time.monotonic()
        assert d.proc.poll() is None, "the daemon exited:\n" + d.read_log()[-6000:]

        for jid in jids:
            j = d.wait_job(jid, timeout=240)
            assert j["state"] == "succeeded" and j["attempts"] == 1, j
        follower.join(60)
        for t in pollers:
            t.stop = True
            t.join(60)
        assert follower.failure is None, follower.failure
        assert d.proc.poll() is None, "the daemon exited:\n" + d.read_log()[-6000:]

        answers = sorted(a for t in pollers for a in t.answers)
        errors = [e for t in pollers for e in t.errors]
        assert not errors, errors[:5]
        # Answers begun while the database was away (from the end of its shutdown to the start of
        # the restart): 503 store_unavailable naming the database, in bounded time.
        during = [a for a in answers if t_down <= a[0] and a[1] <= t_up0]
        assert len(during) > 20, len(during)
        slowest = max(a[1] - a[0] for a in answers)
        assert slowest < BOUND, f"a request took {slowest:.2f} s"
        n503 = 0
        for t0, t1, status, body in during:
            assert status == 503, (status, body[:300])
            err = dtserver.json.loads(body)
            validate(err, {"$ref": "#/components/schemas/Error"}, "503")
            assert err["error"]["code"] == "store_unavailable", err
            assert "postgresql" in err["error"]["message"], err
            n503 += 1
        others = [a for a in answers if a[2] not in (200, 503)]
        assert not others, [(a[2], a[3][:200]) for a in others[:5]]
        ok_after = [a[1] for a in answers if a[0] >= t_up and a[2] == 200]
        assert ok_after, "no request succeeded after the restart"
        recover = ok_after[0] - t_up
        assert recover < RECOVER, f"requests succeed again {recover:.2f} s after the restart"
        late503 = [a for a in answers if a[0] >= t_up + RECOVER and a[2] != 200]
        assert not late503, late503[:3]

        polled = check_events(d, jids[0])
        for jid in jids[1:]:
            check_events(d, jid)
        streamed = [(i, t) for i, t, _ in follower.events]
        assert streamed == [(e["seq"], e["type"]) for e in polled], (len(streamed), len(polled))
        for jid in jids[1:]:
            check_same_results(d, jids[0], jid)
        log = d.read_log()
        assert "queued again" not in log, "the daemon queued its own running job again"
        print(f"PostgreSQL down {t_up0 - t_down:.2f} s (fast shutdown {t_down - t_down0:.2f} s, start "
              f"{t_up - t_up0:.2f} s), lease {LEASE} s: {n503} requests answered 503 store_unavailable, "
              f"slowest request {slowest:.3f} s; requests succeed again {recover:.3f} s after the restart; "
              f"the event stream: {follower.streams} stream(s), {follower.refused} refused; "
              f"3 jobs succeeded once (attempt 1), events complete and ordered")
        assert d.stop() == 0, d.read_log()[-3000:]
    except Exception:
        if d:
            sys.stderr.write("---- daemon log (tail) ----\n" + d.read_log()[-8000:])
        raise
    finally:
        if d:
            d.cleanup()
        pgcluster.stop(info_path)
        dtserver.shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    run(main)
