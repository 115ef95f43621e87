"""Load benchmark (a program, not a test): N clients poll GET /v1/jobs/{id} for T seconds over
keep-alive connections; prints requests/s and latency percentiles. With --user the job and the
token are a plain user's (the lookup then also checks the owner), else the admin's.

The clients are Python threads in one process by default: on a small host they share the cores
with the daemon and their interpreter lock caps them. To measure the daemon itself, --cpus pins
every thread of the daemon to the given cores and --wrk runs that load generator (Debian's wrk)
with the same number of keep-alive connections on the host's other cores.
  bench_load.py DUCTILED_BINARY [--clients 20] [--seconds 20] [--user] [--cpus 0,1] [--wrk PATH]"""
import argparse
import http.client
import os
import re
import subprocess
import threading
import time

from dtserver import started, unit_cube


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--user", action="store_true", help="poll as a user (role user), not the admin")
    ap.add_argument("--cpus", help="pin the daemon's threads to these cores (e.g. 0,1)")
    ap.add_argument("--wrk", help="the wrk binary: load from wrk on the cores --cpus leaves free")
    a = ap.parse_args()
    # The per-token rate limit is off: the benchmark measures how fast the daemon answers one
    # token's polling, which the limit would otherwise cap at rate_limit requests/s.
    with started(a.binary, {"DUCTILED_LOG_LEVEL": "warn", "DUCTILED_RATE_LIMIT": "0"}) as d:
        token = d.token
        if a.user:
            out = d.cli("token", "create", "--user", "bench")
            assert out.returncode == 0, out.stderr
            token = out.stdout.strip()
        jid = d.request("POST", "/v1/jobs", unit_cube(), token=token).json["id"]
        d.wait_job(jid)
        daemon_cpus = pin(d.proc.pid, a.cpus) if a.cpus else None
        if a.wrk:
            return run_wrk(a, d.port, token, jid, daemon_cpus)
        lat, errors, lock = [], [0], threading.Lock()
        stop = time.time() + a.seconds

        def client():
            c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
            h = {"Authorization": "Bearer " + token}
            mine = []
            while time.time() < stop:
                t0 = time.perf_counter()
                try:
                    c.request("GET", f"/v1/jobs/{jid}", headers=h)
                    r = c.getresponse()
                    r.read()
                    ok = r.status == 200
                except OSError:
                    ok = False
                    c.close()
                    c = http.client.HTTPConnection("127.0.0.1", d.port, timeout=10)
                mine.append(time.perf_counter() - t0)
                if not ok:
                    with lock:
                        errors[0] += 1
            with lock:
                lat.extend(mine)

        threads = [threading.Thread(target=client) for _ in range(a.clients)]
        t0 = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.time() - t0
        lat.sort()
        pct = lambda p: 1e3 * lat[min(len(lat) - 1, int(p * len(lat)))]
        print(f"clients {a.clients}, {wall:.1f} s: {len(lat)} requests, {len(lat) / wall:.0f} requests/s, "
              f"p50 {pct(0.50):.2f} ms, p99 {pct(0.99):.2f} ms, max {1e3 * lat[-1]:.1f} ms, errors {errors[0]}")


def pin(pid, cpus):
    """Pin every thread of process pid (the daemon's threads exist once it answers) to cpus."""
    cpus = {int(c) for c in cpus.split(",")}
    for tid in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(tid), cpus)
    return cpus


def ms(text):
    """wrk's latency ("812.00us", "1.20ms", "2.00s") in milliseconds."""
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]


def run_wrk(a, port, token, jid, daemon_cpus):
    """The load from wrk (a thread per 5 connections, at most one per free core), pinned to the
    cores the daemon does not use (all cores when it uses them all); prints the line the default
    load prints."""
    every = sorted(os.sched_getaffinity(0))
    free = sorted(set(every) - (daemon_cpus or set())) or every  # else share the daemon's
    threads = max(1, min(len(free), (a.clients + 4) // 5))
    cmd = ["taskset", "-c", ",".join(map(str, free)), a.wrk, f"-t{threads}", f"-c{a.clients}",
           f"-d{a.seconds:g}s", "--latency", "-H", f"Authorization: Bearer {token}",
           f"http://127.0.0.1:{port}/v1/jobs/{jid}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=a.seconds + 60).stdout
    print(out)
    reqs = re.search(r"(\d+) requests in ([\d.]+)(\w+)", out)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    p50 = re.search(r"50%\s+(\S+)", out)
    p99 = re.search(r"99%\s+(\S+)", out)
    mx = re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = (int(non2xx.group(1)) if non2xx else 0) + (sum(map(int, sock.groups())) if sock else 0)
    print(f"clients {a.clients}, {a.seconds:.1f} s: {reqs.group(1)} requests, {float(rate.group(1)):.0f} "
          f"requests/s, p50 {ms(p50.group(1)):.2f} ms, p99 {ms(p99.group(1)):.2f} ms, max "
          f"{ms(mx.group(1)):.1f} ms, errors {errors} (wrk on cores {free[0]}-{free[-1]}, daemon on "
          f"{sorted(daemon_cpus) if daemon_cpus else 'any core'})")
    return 0


if __name__ == "__main__":
    main()
