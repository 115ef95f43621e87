"""Cancel a queued job (cancelled at once) and a running job (stops at its next Newton
iteration, keeps the increments it completed); deleting a mesh that a queued or running job
uses is refused with 409; the worker goes on with the next job. Iterations are slowed down with
the test hook DUCTILED_TEST_ITERATION_DELAY_MS so that the job is surely running."""
import time

from dtserver import run, started, unit_cube


def slow_job(mid, increments=10):
    job = unit_cube()
    del job["mesh"]
    job["mesh_id"] = mid
    for s in job["steps"]:
        s["increments"] = increments
    return job


def main(binary):
    with started(binary, {"DUCTILED_TEST_ITERATION_DELAY_MS": "150"}) as d:
        mid = d.request("POST", "/v1/meshes", unit_cube()["mesh"]).json["id"]
        a = d.request("POST", "/v1/jobs", slow_job(mid)).json["id"]
        b = d.request("POST", "/v1/jobs", slow_job(mid)).json["id"]
        c = d.request("POST", "/v1/jobs", slow_job(mid, 1)).json["id"]

        # Mesh in use (by queued and running jobs): refused.
        r = d.request("DELETE", f"/v1/meshes/{mid}")
        assert r.status == 409 and r.json["error"]["code"] == "mesh_in_use" and r.json["error"]["details"]["active_jobs"] == 3, r

        # Queued job: cancelled at once.
        r = d.request("POST", f"/v1/jobs/{b}/cancel")
        assert r.status == 202 and r.json["state"] == "cancelled", r
        evb, done = d.poll_events(b)
        assert done and [e["type"] for e in evb] == ["job.queued", "job.cancelled"], evb
        assert d.request("POST", f"/v1/jobs/{b}/cancel").status == 409
        assert d.request("DELETE", f"/v1/jobs/{a}").status == 409  # running: cancel first

        # Running job: wait for two converged increments, then cancel.
        t0 = time.time()
        while d.request("GET", f"/v1/jobs/{a}").json["progress"]["increments_completed"] < 2:
            assert time.time() - t0 < 60, "job A made no progress"
            time.sleep(0.05)
        r = d.request("POST", f"/v1/jobs/{a}/cancel")
        assert r.status == 202 and r.json["cancel_requested"] is True, r
        ja = d.wait_job(a, timeout=30)
        assert ja["state"] == "cancelled" and ja["error"]["code"] == "cancelled", ja
        kept = ja["progress"]["increments_completed"]
        assert 2 <= kept < 30, ja
        incs = d.request("GET", f"/v1/jobs/{a}/results/increments").json["items"]
        assert len(incs) == kept, (incs, kept)
        f = d.request("GET", f"/v1/jobs/{a}/results/increments/{kept}").json
        assert f["n"] == kept and f["U"]
        s = d.request("GET", f"/v1/jobs/{a}/results").json
        assert s["completed"] is False
        eva = d.sse(a)
        types = [e[1] for e in eva]
        assert "job.cancel_requested" in types and types[-1] == "job.cancelled", types
        assert [e[0] for e in eva] == list(range(1, len(eva) + 1))

        # The worker goes on with the next job; then the mesh is free.
        assert d.wait_job(c, timeout=60)["state"] == "succeeded"
        assert d.request("DELETE", f"/v1/meshes/{mid}").status == 204
        assert d.request("DELETE", f"/v1/jobs/{a}").status == 204


if __name__ == "__main__":
    run(main)
