"""Store benchmark (a program, not a test): the daemon's request rates on each store, SQLite (its
data directory) and PostgreSQL (a server this program starts with pgcluster.py, on loopback, and
stops), side by side on the same machine.

  status polling   N clients GET /v1/jobs/{id} of a finished job for T seconds (keep-alive)
  submission       N clients POST /v1/jobs (a unit cube on a stored mesh) for T seconds; each
                   submission is a transaction (job row, job.queued event, audit record)

The daemon's one worker runs the submitted jobs meanwhile, slowed to a sleep per Newton
iteration (test_iteration_delay_ms = 1000) so that solving takes no CPU from the requests.
Prints requests/s and latency percentiles per store and phase, and with --json a JSON object.

  bench_store.py DUCTILED_BINARY [--clients 8] [--seconds 10] [--stores sqlite,postgresql]
                 [--json FILE]"""
import argparse
import http.client
import json
import os
import tempfile
import threading
import time

import pgcluster


def load(port, token, seconds, clients, method, path, body):
    lat, errors, lock = [], [0], threading.Lock()
    stop = time.time() + seconds

    def client():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        h = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        mine, bad = [], 0
        while time.time() < stop:
            t0 = time.perf_counter()
            try:
                c.request(method, path, body=body, headers=h)
                r = c.getresponse()
                r.read()
                ok = r.status in (200, 201)
            except OSError:
                ok = False
                c.close()
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            mine.append(time.perf_counter() - t0)
            bad += not ok
        with lock:
            lat.extend(mine)
            errors[0] += bad

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - t0
    lat.sort()
    pct = lambda p: 1e3 * lat[min(len(lat) - 1, int(p * len(lat)))]
    return {"requests": len(lat), "per_s": round(len(lat) / wall, 1), "p50_ms": round(pct(0.5), 2),
            "p99_ms": round(pct(0.99), 2), "errors": errors[0]}


def bench(binary, store, database, clients, seconds):
    import dtserver
    env = {"DUCTILED_LOG_LEVEL": "warn", "DUCTILED_RATE_LIMIT": "0", "DUCTILED_MAX_QUEUED_JOBS": "100000000",
           "DUCTILED_MAX_ACTIVE_JOBS_PER_USER": "100000000", "DUCTILED_TEST_ITERATION_DELAY_MS": "1000",
           "DUCTILED_FAIR_SHARE_WINDOW": "3600"}
    if database:
        env["DUCTILED_DATABASE"] = database
    with dtserver.started(binary, env) as d:
        job = dtserver.unit_cube()
        mesh = job.pop("mesh")
        job["mesh_id"] = d.request("POST", "/v1/meshes", mesh).json["id"]
        jid = d.request("POST", "/v1/jobs", dtserver.unit_cube()).json["id"]
        d.wait_job(jid, timeout=120)
        body = json.dumps(job).encode()
        res = {"store": store,
               "status_polling": load(d.port, d.token, seconds, clients, "GET", f"/v1/jobs/{jid}", None),
               "submission": load(d.port, d.token, seconds, clients, "POST", "/v1/jobs", body)}
        for phase in ("status_polling", "submission"):
            r = res[phase]
            print(f"{store:10} {phase:14} {clients} clients, {seconds:.0f} s: {r['per_s']:8.1f} requests/s, "
                  f"p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, errors {r['errors']}", flush=True)
        return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--stores", default="sqlite,postgresql")
    ap.add_argument("--json")
    a = ap.parse_args()
    stores = a.stores.split(",")
    os.environ.pop("DUCTILE_TEST_PG", None)
    out = {"clients": a.clients, "seconds": a.seconds, "cpus": os.cpu_count(), "results": []}
    if "sqlite" in stores:
        out["results"].append(bench(a.binary, "sqlite", None, a.clients, a.seconds))
    if "postgresql" in stores:
        info_path = os.path.join(tempfile.mkdtemp(prefix="bench-store-"), "pg.json")
        info = pgcluster.start(info_path)
        try:
            out["postgresql_server"] = server_version(info)
            url = pgcluster.createdb(info, "bench")
            out["results"].append(bench(a.binary, "postgresql", url, a.clients, a.seconds))
        finally:
            pgcluster.stop(info_path)
            os.rmdir(os.path.dirname(info_path))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


def server_version(info):
    return pgcluster.psql(info, "postgres", "SHOW server_version")[0][0]


if __name__ == "__main__":
    main()
