"""Ten jobs submitted at once all complete, in submission order (one worker), and each job's
events arrive exactly once, in order: sequence numbers 1..N with no gap or duplicate, the
same by SSE (followed concurrently while the jobs run) and by polling."""
import threading

from dtserver import run, started, unit_cube


def main(binary):
    with started(binary) as d:
        mesh = unit_cube()["mesh"]
        mid = d.request("POST", "/v1/meshes", mesh).json["id"]
        ids, lock = [None] * 10, threading.Lock()
        barrier = threading.Barrier(10)

        def submit(i):
            job = unit_cube()
            del job["mesh"]
            job["mesh_id"] = mid
            job["title"] = f"job {i}"
            barrier.wait()
            r = d.request("POST", "/v1/jobs", job)
            assert r.status == 201, r
            with lock:
                ids[i] = r.json["id"]

        threads = [threading.Thread(target=submit, args=(i,)) for i in range(10)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(ids), ids

        streams, errors = {}, []

        def follow(jid):
            try:
                streams[jid] = d.sse(jid)
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))

        followers = [threading.Thread(target=follow, args=(jid,)) for jid in ids]
        for t in followers:
            t.start()
        for t in followers:
            t.join(120)
        assert not errors, errors
        jobs = [d.wait_job(jid) for jid in ids]
        assert all(j["state"] == "succeeded" for j in jobs), [j["state"] for j in jobs]

        # Submission order (the store's order, newest first in listings) == start order.
        listed = [j["id"] for j in d.request("GET", "/v1/jobs?limit=10").json["items"]][::-1]
        assert sorted(listed) == sorted(ids)
        starts = [d.request("GET", f"/v1/jobs/{jid}").json for jid in listed]
        assert [s["started_at"] for s in starts] == sorted(s["started_at"] for s in starts)
        for a, b in zip(starts, starts[1:]):
            assert a["finished_at"] <= b["started_at"], (a["id"], b["id"])

        for jid in ids:
            ev = streams[jid]
            seqs = [e[0] for e in ev]
            assert seqs == list(range(1, len(seqs) + 1)), (jid, seqs)
            assert ev[-1][1] == "job.succeeded" and [e[1] for e in ev].count("job.succeeded") == 1
            polled, done = d.poll_events(jid, limit=7)
            assert done and [(e["seq"], e["type"]) for e in polled] == [(s, t) for s, t, _ in ev]
            uz = d.request("GET", f"/v1/jobs/{jid}/results").json["increments"][2]["monitors"]["uz_top"]
            assert abs(uz - 5.272727e-3) < 1e-9


if __name__ == "__main__":
    run(main)
