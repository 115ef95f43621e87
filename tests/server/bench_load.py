"""Load benchmark (a program, not a test): N clients poll GET /v1/jobs/{id} for T seconds over
keep-alive connections; prints requests/s and latency percentiles. With --user the job and the
token are a plain user's (the lookup then also checks the owner), else the admin's.
  bench_load.py DUCTILED_BINARY [--clients 20] [--seconds 20] [--user]"""
import argparse
import http.client
import threading
import time

from dtserver import started, unit_cube


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--user", action="store_true", help="poll as a user (role user), not the admin")
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


if __name__ == "__main__":
    main()
