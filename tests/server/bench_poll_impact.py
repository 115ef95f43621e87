"""Does status polling slow the solver? (a program, not a test)

Solves the same job through ductiled twice, alone and while N clients poll GET /v1/jobs/{id}
as fast as they can, and prints the solver's own time (the job's timings.total) for both.
On a small machine the daemon (HTTP threads + the solver worker) is pinned to one core and
the Python clients to another, so the comparison shows the daemon's cost of serving the polls,
not the clients' CPU use.
  bench_poll_impact.py DUCTILED_BINARY [--clients 20] [--n 14] [--interval 0.1]"""
import argparse
import http.client
import os
import threading
import time

from dtserver import box_job, started


def solve_seconds(d, job, pollers, interval):
    jid = d.request("POST", "/v1/jobs", job).json["id"]
    stop, count, lock = [False], [0], threading.Lock()

    def client():
        c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
        h = {"Authorization": "Bearer " + d.token}
        n = 0
        while not stop[0]:
            c.request("GET", f"/v1/jobs/{jid}", headers=h)
            c.getresponse().read()
            n += 1
            if interval > 0:
                time.sleep(interval)
        with lock:
            count[0] += n

    threads = [threading.Thread(target=client) for _ in range(pollers)]
    t0 = time.time()
    for t in threads:
        t.start()
    d.wait_job(jid, timeout=600)
    stop[0] = True
    for t in threads:
        t.join()
    wall = time.time() - t0
    j = d.request("GET", f"/v1/jobs/{jid}").json
    total = (j.get("timings") or {}).get("total") or j.get("progress", {}).get("timings", {}).get("total")
    return total, count[0] / wall if pollers else 0.0, j.get("state")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--n", type=int, default=14)
    ap.add_argument("--interval", type=float, default=0.1, help="seconds between one client's polls (0: as fast as possible)")
    a = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    env = {"DUCTILED_LOG_LEVEL": "warn", "DUCTILED_SOLVER_THREADS": "1", "DUCTILED_RATE_LIMIT": "0"}  # unthrottled polling
    with started(a.binary, env) as d:
        if len(cpus) >= 2:
            os.sched_setaffinity(d.proc.pid, {cpus[0]})  # daemon: HTTP threads + solver
            os.sched_setaffinity(0, set(cpus[1:]))       # this process: the polling clients
        job = box_job(a.n)
        alone = solve_seconds(d, job, 0, 0)
        polled = solve_seconds(d, job, a.clients, a.interval)
        alone2 = solve_seconds(d, job, 0, 0)
    base = min(alone[0], alone2[0])
    print(f"job box {a.n}^3 hex8, 20 increments, 1 solver thread")
    print(f"solver time alone: {alone[0]:.3f} s and {alone2[0]:.3f} s")
    print(f"solver time with {a.clients} clients polling every {a.interval} s ({polled[1]:.0f} requests/s): {polled[0]:.3f} s "
          f"({100 * (polled[0] / base - 1):+.1f}% against the faster run alone)")


if __name__ == "__main__":
    main()
