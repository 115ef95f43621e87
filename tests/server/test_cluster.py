"""Three daemons sharing one PostgreSQL store and one data directory (issue 34), on loopback.

alice and bob submit 30 jobs between them, spread over the three daemons' APIs, while every job's
event stream is followed live on every daemon (90 streams). Each daemon has one worker; they
claim from the one queue (FOR UPDATE SKIP LOCKED) and wake each other through LISTEN/NOTIFY.
Checked: every job succeeds exactly once (one attempt, one job.started, one daemon's worker ran
it: the daemons' logs name each job once), none is lost, the work is spread over the daemons,
and each job's events are complete and in order (seq 1, 2, ..., ending with job.succeeded) and
the same on the three streams and in the polled list of any daemon. Users, meshes, jobs and
results are one view: a job submitted through one daemon is listed, and its results read,
through the others. Prints the jobs each daemon ran and the wall time."""
import json
import os
import re
import sys
import tempfile
import threading
import time

import dtserver
from dtserver import Daemon, remove_data_dir, run, unit_cube

N_JOBS = 30


def follow(d, jid, out, key):
    try:
        out[key] = [(i, t, data["seq"] if "seq" in data else None) for i, t, data in d.sse(jid, timeout=120)]
    except Exception as e:  # reported by the main thread
        out[key] = e


def add_user(d, name):
    r = d.cli("admin", "user", "add", name)
    assert r.returncode == 0, r.stderr
    r = d.cli("token", "create", "--user", name)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def main(binary):
    if not dtserver.PG_INFO:
        print("SKIP: needs PostgreSQL (runs as server_pg_cluster)")
        sys.exit(77)
    data = tempfile.mkdtemp(prefix="ductiled-cluster-")
    env = {"DUCTILED_TEST_ITERATION_DELAY_MS": "5", "DUCTILED_MAX_STREAMS_PER_USER": "200",
           "DUCTILED_MAX_CONNECTIONS_PER_CLIENT": "400", "DUCTILED_MAX_CONNECTIONS": "600",
           "DUCTILED_RATE_LIMIT": "0"}
    daemons = []
    try:
        for k in range(3):  # the first start makes the user admin and its token
            d = Daemon(binary, env, data_dir=data)
            d.log_path = f"{data}-{k}.log"
            daemons.append(d.start())
        tokens = {"alice": add_user(daemons[0], "alice"), "bob": add_user(daemons[1], "bob")}
        mesh = unit_cube()["mesh"]
        mesh_ids = {u: daemons[2].request("POST", "/v1/meshes", mesh, token=t).json["id"] for u, t in tokens.items()}
        t0 = time.time()
        streams, threads, jobs = {}, [], []
        for i in range(N_JOBS):
            user = "alice" if i % 2 == 0 else "bob"
            d = daemons[i % 3]
            job = unit_cube()
            del job["mesh"]
            job["mesh_id"] = mesh_ids[user]
            job["title"] = f"{user}-{i}"
            r = d.request("POST", "/v1/jobs", job, token=tokens[user])
            assert r.status == 201, r
            jid = r.json["id"]
            jobs.append(jid)
            for k, dk in enumerate(daemons):
                th = threading.Thread(target=follow, args=(dk, jid, streams, (jid, k)), daemon=True)
                th.start()
                threads.append(th)
        for th in threads:
            th.join(180)
        wall = time.time() - t0

        ran = {}
        for k, d in enumerate(daemons):
            for jid in re.findall(r'msg="worker 0: running job \(attempt \d+\)" job=(j-[0-9a-f]{16})', d.read_log()):
                ran.setdefault(jid, []).append(k)
        for jid in jobs:
            j = daemons[0].request("GET", f"/v1/jobs/{jid}").json
            assert j["state"] == "succeeded" and j["attempts"] == 1, j
            assert len(ran.get(jid, [])) == 1, (jid, ran.get(jid))
            lists = [streams[(jid, k)] for k in range(3)]
            for lst in lists:
                assert not isinstance(lst, Exception), lst
            seqs = [e[0] for e in lists[0]]
            types = [e[1] for e in lists[0]]
            assert seqs == list(range(1, len(seqs) + 1)), seqs
            assert types[0] == "job.queued" and types[-1] == "job.succeeded", types
            assert types.count("job.started") == 1, types
            assert lists[1] == lists[0] and lists[2] == lists[0], (jid, lists)
            polled, done = daemons[(jobs.index(jid) + 1) % 3].poll_events(jid)
            assert done and [(e["seq"], e["type"]) for e in polled] == [(e[0], e[1]) for e in lists[0]], jid
        per = [sum(1 for v in ran.values() if v == [k]) for k in range(3)]
        print(f"{N_JOBS} jobs, each run once: daemon 0 ran {per[0]}, daemon 1 {per[1]}, daemon 2 {per[2]}; "
              f"{N_JOBS * 3} streams complete and in order; {wall:.1f} s")
        assert sum(per) == N_JOBS and sum(1 for p in per if p > 0) >= 2, per

        # One view: the lists and results agree whichever daemon answers.
        for user, tok in tokens.items():
            views = [sorted(j["id"] for j in d.request("GET", "/v1/jobs?limit=100", token=tok).json["items"])
                     for d in daemons]
            assert views[0] == views[1] == views[2] and len(views[0]) == N_JOBS // 2, (user, views)
        summaries = [json.dumps(d.request("GET", f"/v1/jobs/{jobs[-1]}/results").json, sort_keys=True)
                     for d in daemons]
        assert summaries[0] == summaries[1] == summaries[2]
        counts = [d.request("GET", "/v1/health").json["jobs"] for d in daemons]
        assert all(c["succeeded"] == N_JOBS and c["queued"] == 0 and c["running"] == 0 for c in counts), counts
        for d in daemons:
            assert d.stop() == 0, d.read_log()[-5000:]
    except Exception:
        for k, d in enumerate(daemons):
            sys.stderr.write(f"---- daemon {k} log (tail) ----\n" + d.read_log()[-6000:])
        raise
    finally:
        for d in daemons:
            d.cleanup()
        remove_data_dir(data)
        for d in daemons:
            try:
                os.unlink(d.log_path)
            except OSError:
                pass


if __name__ == "__main__":
    run(main)
