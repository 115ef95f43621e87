"""A whole session with Python's standard library: upload a mesh, submit Kiran's unit-cube
job by mesh id, follow its SSE stream to the end, fetch every kind of result, and check the
top displacement u_z = 5.272727e-3 after step 3 and the linear tolerance each Newton iteration
reports. Also an inline-mesh job with the adaptive linear tolerance (the same u_z to 1e-8, its
reported tolerances within bounds), listings with pagination, health, metrics, deletes; finally
every route of the spec must have been hit."""
import sys

from dtserver import HITS, SPEC, run, started, unit_cube


def main(binary):
    with started(binary) as d:
        job = unit_cube()
        mesh = job.pop("mesh")
        r = d.request("POST", "/v1/meshes?name=unit-cube", mesh)
        assert r.status == 201, r
        m = r.json
        assert (m["n_nodes"], m["n_elements"], m["dim"], m["name"]) == (8, 1, 3, "unit-cube"), m
        assert d.request("GET", f"/v1/meshes/{m['id']}").json == m
        job["mesh_id"] = m["id"]
        r = d.request("POST", "/v1/jobs", job)
        assert r.status == 201, r
        j = r.json
        assert j["state"] in ("queued", "running") and j["mesh_id"] == m["id"] and j["progress"]["n_steps"] == 3

        events = d.sse(j["id"])
        seqs = [e[0] for e in events]
        assert seqs == list(range(1, len(seqs) + 1)), seqs
        types = [e[1] for e in events]
        assert types[0] == "job.queued" and types[1] == "job.started" and types[-1] == "job.succeeded", types
        assert types.count("increment.converged") == 3 and types.count("step.completed") == 3
        # Replay from Last-Event-ID gives exactly the rest.
        tail = d.sse(j["id"], last_event_id=seqs[-4])
        assert [e[0] for e in tail] == seqs[-3:], tail
        # Polling gives the same events.
        polled, done = d.poll_events(j["id"], limit=5)
        assert done and [e["seq"] for e in polled] == seqs and [e["type"] for e in polled] == types

        j = d.request("GET", f"/v1/jobs/{j['id']}").json
        assert j["state"] == "succeeded" and j["progress"]["percent"] == 100 and j["progress"]["increments_completed"] == 3, j
        assert j["timings"]["total"] > 0 and j["backend"] == "cpu"

        s = d.request("GET", f"/v1/jobs/{j['id']}/results").json
        assert s["completed"] is True and len(s["increments"]) == 3
        uz = s["increments"][2]["monitors"]["uz_top"]
        assert abs(uz - 5.272727e-3) < 1e-9, uz

        incs = d.request("GET", f"/v1/jobs/{j['id']}/results/increments").json["items"]
        assert [i["n"] for i in incs] == [1, 2, 3] and all(i["vtu"] for i in incs), incs
        f = d.request("GET", f"/v1/jobs/{j['id']}/results/increments/3").json
        top = [f["node_ids"].index(n) for n in (5, 6, 7, 8)]
        for k in top:
            assert abs(f["U"][k][2] - 5.272727e-3) < 1e-8, f["U"][k]
        assert f["PEEQ"][0] > 0 and f["MISES"][0] > 450
        only_u = d.request("GET", f"/v1/jobs/{j['id']}/results/increments/3?fields=U").json
        assert "U" in only_u and "S" not in only_u
        vtu = d.request("GET", f"/v1/jobs/{j['id']}/results/increments/3/vtu")
        assert vtu.status == 200 and b"<VTKFile" in vtu.body
        csv = d.request("GET", f"/v1/jobs/{j['id']}/results/history.csv")
        lines = csv.body.decode().strip().splitlines()
        assert lines[0].startswith("step,increment") and len(lines) == 4, lines
        assert abs(float(lines[3].split(",")[9]) - 5.272727e-3) < 1e-9
        assert d.request("GET", f"/v1/jobs/{j['id']}/results/increments/4").status == 404
        # a JSON job asks for neither CalculiX file unless output.frd / print requests say so;
        # energy.csv is an explicit run's (test_explicit.py)
        for f in ("results.frd", "results.dat", "energy.csv"):
            r = d.request("GET", f"/v1/jobs/{j['id']}/results/{f}")
            assert r.status == 404 and r.json["error"]["code"] == "not_found", (f, r)

        # Every Newton iteration reports its linear solve's tolerance: none before the first
        # solve of an increment, linear.tolerance for every solve with the default forcing.
        its = [e[2]["data"] for e in events if e[1] == "newton.iteration"]
        tol = job.get("solver", {}).get("linear", {}).get("tolerance", 1e-9)
        assert all((i["pcg_tolerance"] is None) == (i["iteration"] == 0) for i in its), its
        assert all(i["pcg_tolerance"] == tol for i in its if i["iteration"] > 0), its

        # Inline mesh, with the adaptive linear tolerance (docs/job-format.md): its first solve
        # of each increment at 1e-2, none looser, none tighter than linear.tolerance.
        inline = unit_cube()
        inline["title"] = "inline"
        inline.setdefault("solver", {}).setdefault("linear", {})["forcing"] = "adaptive"
        r = d.request("POST", "/v1/jobs", inline)
        assert r.status == 201 and r.json["mesh_id"] is None, r
        j2 = d.wait_job(r.json["id"])
        assert j2["state"] == "succeeded", j2
        its = [e[2]["data"] for e in d.sse(j2["id"]) if e[1] == "newton.iteration"]
        assert [i["pcg_tolerance"] for i in its if i["iteration"] == 1] == [1e-2] * 3, its
        assert all(tol <= i["pcg_tolerance"] <= 1e-2 for i in its if i["iteration"] > 0), its
        s2 = d.request("GET", f"/v1/jobs/{j2['id']}/results").json
        assert abs(s2["increments"][2]["monitors"]["uz_top"] - 5.272727e-3) < 1e-8, s2["increments"][2]

        # Listings, filters, pagination.
        page = d.request("GET", "/v1/jobs?limit=1").json
        assert len(page["items"]) == 1 and page["items"][0]["id"] == j2["id"] and page["next_cursor"]
        page2 = d.request("GET", f"/v1/jobs?limit=1&cursor={page['next_cursor']}").json
        assert page2["items"][0]["id"] == j["id"] and page2["next_cursor"] is None
        assert len(d.request("GET", f"/v1/jobs?mesh_id={m['id']}").json["items"]) == 1
        assert len(d.request("GET", "/v1/jobs?state=queued,running").json["items"]) == 0
        assert len(d.request("GET", "/v1/jobs?state=succeeded").json["items"]) == 2
        assert d.request("GET", "/v1/meshes").json["items"][0]["id"] == m["id"]

        h = d.request("GET", "/v1/health").json
        assert h["status"] == "ok" and h["queue_depth"] == 0 and h["jobs"]["succeeded"] == 2
        met = d.request("GET", "/metrics", token=None)
        text = met.body.decode()
        assert 'ductile_jobs{state="succeeded"} 2' in text and "ductile_solve_seconds_count 2" in text, text
        assert 'ductile_http_requests_total{code="200"}' in text

        # The audit log has the submissions (test_audit.py checks it in depth).
        submitted = {x["target"] for x in d.request("GET", "/v1/audit?action=job.submit").json["items"]}
        assert {j["id"], j2["id"]} <= submitted, submitted

        # Cancel of a finished job is refused; deletes.
        assert d.request("POST", f"/v1/jobs/{j['id']}/cancel").status == 409
        assert d.request("DELETE", f"/v1/jobs/{j2['id']}").status == 204
        assert d.request("GET", f"/v1/jobs/{j2['id']}").status == 404
        assert d.request("DELETE", f"/v1/meshes/{m['id']}").status == 204
        assert d.request("GET", f"/v1/meshes/{m['id']}").status == 404

        # The dashboard's static routes (test_dashboard_static.py checks them in depth): 200
        # when a dashboard is installed or built, 404 otherwise; no token needed.
        for meth in ("GET", "HEAD"):
            assert d.request(meth, "/", token=None).status in (200, 404)
            assert d.request(meth, "/assets/no-such-file.js", token=None).status == 404
            assert d.request(meth, "/no-such-file.ico", token=None).status == 404

        # Every route of the spec was exercised.
        hit = {(meth, tmpl) for meth, tmpl, _ in HITS}
        missing = [(meth.upper(), p) for p, ops in SPEC["paths"].items() for meth in ops if (meth.upper(), p) not in hit]
        missing = [x for x in missing if x != ("DELETE", "/v1/jobs/{job_id}/cancel")]
        assert not missing, f"routes not exercised: {missing}"


if __name__ == "__main__":
    run(main)
