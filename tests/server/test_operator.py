"""The matrix-free operator through the daemon (docs/job-format.md, linear.operator): a plastic
box job submitted three times over the REST API, assembled and matrix-free with block Jacobi,
and matrix-free with the two-level preconditioner; all succeed with the same top displacement
at every increment (to 1e-9 relative: the operators differ only in rounding; reference: the
assembled run and the box's closed-form final u_z = 5.272727e-3), the matrix-free runs' events
say which operator ran and how many element classes it found (one: a regular box) and which
preconditioner, the same Newton iterations; a misspelt operator is refused at submission (422
invalid_job) with a message that names the JSON path and the allowed values."""
from dtserver import box_job, run, started


def submit(d, job):
    r = d.request("POST", "/v1/jobs", job)
    assert r.status == 201, r
    j = d.wait_job(r.json["id"], timeout=120)
    assert j["state"] == "succeeded", j
    return j["id"]


def main(binary):
    with started(binary) as d:
        runs = {}
        variants = (("assembled", "block_jacobi"), ("matrix_free", "block_jacobi"), ("matrix_free", "two_level"))
        for op, pc in variants:
            job = box_job(5, increments=(3, 3))
            job["title"] = f"box, {op} operator, {pc}"
            job["solver"] = {"linear": {"operator": op, "preconditioner": pc, "tolerance": 1e-12}}
            jid = submit(d, job)
            res = d.request("GET", f"/v1/jobs/{jid}/results").json["increments"]
            events, _ = d.poll_events(jid)
            newton = sum(1 for e in events if e["type"] == "newton.iteration" and e["data"]["iteration"] > 0)
            infos = [e["data"]["text"] for e in events if e["type"] == "info"]
            runs[op, pc] = ([i["monitors"]["uz_top"] for i in res], newton, infos)
        ua, na, _ = runs[variants[0]]
        assert abs(ua[-1] - 5.272727e-3) < 1e-8, ua[-1]
        for op, pc in variants[1:]:
            um, nm, infos = runs[op, pc]
            assert len(ua) == len(um) == 6, (ua, um)
            for a, m in zip(ua, um):
                assert abs(a - m) <= 1e-9 * abs(a), (op, pc, a, m)
            assert na == nm, (op, pc, na, nm)
            assert any("operator: matrix-free, 1 class of congruent elements" in t for t in infos), infos
            assert any(f"PCG, {pc} preconditioner" in t for t in infos), infos
            print(f"assembled and {op} with {pc}: u_z {ua[-1]:.9e} / {um[-1]:.9e}, {na} / {nm} Newton iterations")

        job = box_job(3, increments=(1, 1))
        job["solver"] = {"linear": {"operator": "matrixfree"}}
        r = d.request("POST", "/v1/jobs", job)
        assert r.status == 422 and "solver.linear.operator" in r.json["error"]["message"], r
        assert "assembled, matrix_free" in r.json["error"]["message"], r
        print("refused:", r.json["error"]["message"])


if __name__ == "__main__":
    run(main)
