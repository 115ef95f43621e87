"""Order-P jobs through the daemon (docs/highorder.md, Daemon jobs): a Gmsh mesh of order-P
hexahedra uploaded, jobs on it validated at submission by the order-P solver's check, run by
dt_ho_job_run with progress events and cancellation.

The cantilever of tests/highorder/data/ho_cantilever.geo ([0,4] x [0,1]^2, clamped on "root"),
meshed by gmsh at order 2 at test time (exit 77, skipped, without gmsh):

  (a) upload: "order": 2 and the order-P mesh's node and element counts in the mesh object and
      the list; a J2 job with the tip displaced (plastic at the root) succeeds, and the daemon's
      summary.json equals `ductile-solve MESH.msh --job JOB.json -o DIR` on the same files
      (max_u, max_peeq, every node set's RF and U_mean to 1e-12 relative, the iteration counts
      equal); its events come in order: step.started, per increment increment.started, its
      newton.iteration events (iterations rising from 0), increment.converged with n rising,
      then step.completed and job.succeeded, the last percent 100;
  (b) a larger job (16 x 4 x 4 hexahedra, 20 increments) cancelled once its first Newton
      iteration is reported ends "cancelled" within 20 s, and the daemon goes on: a job
      submitted after it succeeds;
  (c) refused at submission (422 invalid_job, nothing stored) with the key's JSON path: a
      second step, an explicit step, a key outside the subset;
  (d) a truncated order-P .msh is refused at upload (422 invalid_mesh) with its file and line;
  (e) SIGTERM while an order-P job runs: the daemon exits 0 and the job stays running
      (job.interrupted); the next start resumes it from its checkpoint (job.resumed, the
      increments kept not computed again: increment.converged continues at kept + 1) and it
      succeeds on its second attempt with the uninterrupted run's summary.json (every number to
      1e-12 relative, the counts and files equal);
  (f) admission by memory: with max_job_bytes below the order-P run's estimate (about 1.4 MB
      for the 32 hexahedra of order 2), the job is refused at submission with 422 does_not_fit,
      naming the order-P solver and the host (the order-P solver runs there whatever the
      workers' devices: details.device "host (...)"); the mesh itself is stored;
  (g) kill -9 between increment 2's checkpoint and its announcement (test hook
      test_exit_after_checkpoint = 2, exit 137): the next start re-queues the job, announces
      increment 2 from the kept files (recovered), resumes with 2 increments kept (job.resumed),
      starts only increments 3 and 4, and ends with the uninterrupted run's summary.json, the
      VTUs of all four increments and their rows in the increments list;
  (h) the same crash, then the checkpoint corrupted (a byte flipped): refused with the reason in
      job.restarted and the log ("corrupt"), the job runs again from the beginning
      (increment.converged from n = 1) to the same summary;
  (i) the same crash on another job (another tip displacement), then the checkpoint of (g)'s
      job put in its place: refused as another job's, run from the beginning, and its result is
      its own (not (g)'s).

With --gpu (label gpu): every daemon of the test runs the cuda backend, so the order-P jobs run
on its GPU (docs/highorder.md), on data/ho_cantilever_p2.msh (gmsh's order-2 file of the same
cantilever, so no gmsh is needed), and the reference is `ductile-solve --backend cuda`; the
checks are the same (the GPU's products are deterministic: the daemon's run, the resumed ones
and the command's agree to 1e-12). Without --gpu the daemons and the command run on the CPU
backend.

Iterations are slowed with DUCTILED_TEST_ITERATION_DELAY_MS so the cancelled job is surely
running when the cancel arrives; every wait polls with a deadline.

Usage: test_highorder_jobs.py DUCTILED DUCTILE_SOLVE [--gpu]"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from dtserver import ROOT, Daemon, attempt_dir, remove_data_dir, run, started

MSH = {"Content-Type": "application/x-gmsh-msh"}
GEO = os.path.join(ROOT, "tests", "highorder", "data", "ho_cantilever.geo")
JOB = {
    "ductile": 1, "title": "J2 cantilever, order 2",
    "materials": [{"name": "steel", "elastic": {"E": 200000, "nu": 0.3},
                   "plastic": {"yield_stress": 250,
                               "hardening": {"type": "linear", "modulus": 6600}}}],
    "sections": [{"element_set": "beam", "material": "steel", "kind": "solid"}],
    "steps": [{"name": "bend", "increments": {"type": "fixed", "count": 4},
               "boundary": [{"node_set": "root", "fixed": "all"},
                            {"node_set": "tip", "displacement": {"y": -0.05}}]}],
    "solver": {"newton": {"max_iterations": 30, "force_tolerance": 1e-10},
               "linear": {"tolerance": 1e-12}},
}
SOLVE = sys.argv[2] if len(sys.argv) > 2 else None
GPU = "--gpu" in sys.argv[3:]
BACKEND = "cuda" if GPU else "cpu"
STORED_MSH = os.path.join(ROOT, "tests", "highorder", "data", "ho_cantilever_p2.msh")


def env(extra=None):
    """A daemon's environment: the test's backend, then extra. The test harness starts daemons
    with gpus = cpu, which means the cpu backend whatever DUCTILED_BACKEND says; with --gpu one
    worker on GPU 0."""
    e = {"DUCTILED_BACKEND": BACKEND}
    if GPU:
        e["DUCTILED_GPUS"] = "0"
    e.update(extra or {})
    return e


def gmsh(work, name, nx, ny):
    out = os.path.join(work, name + ".msh")
    subprocess.run(["gmsh", "-3", "-order", "2", "-format", "msh4", "-setnumber", "nx", str(nx),
                    "-setnumber", "ny", str(ny), "-o", out, GEO],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def close(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-300)


def upload(d, path, name):
    with open(path, "rb") as f:
        r = d.request("POST", f"/v1/meshes?name={name}", f.read(), MSH)
    assert r.status == 201, r
    return r.json


def on(mid, job):
    job = copy.deepcopy(job)
    job["mesh_id"] = mid
    return job


def cli_summary(work, msh, job):
    path, out = os.path.join(work, "job.json"), os.path.join(work, "cli_out")
    with open(path, "w") as f:
        json.dump(job, f)
    p = subprocess.run([SOLVE, msh, "--job", path, "-o", out, "-q", "--backend", BACKEND],
                       capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def check_upload(d, msh):
    """(a) the mesh object says the order and the order-P counts (2 x 8 x 2 x 2 elements)."""
    m = upload(d, msh, "cantilever.msh")
    nodes = (2 * 8 + 1) * (2 * 2 + 1) ** 2
    assert m["format"] == "msh" and m["order"] == 2 and m["dim"] == 3, m
    assert m["n_elements"] == 32 and m["n_nodes"] == nodes, m
    assert d.request("GET", f"/v1/meshes/{m['id']}").json == m
    listed = [x for x in d.request("GET", "/v1/meshes").json["items"] if x["id"] == m["id"]]
    assert listed == [m], listed
    print(f"ok: order-2 mesh stored: {m['n_nodes']} nodes, {m['n_elements']} hexahedra")
    return m["id"]


def check_events(events):
    """(a) the events of an order-P run, in the hex8 path's order."""
    types = [t for _, t, _ in events]
    assert [i for i, _, _ in events] == list(range(1, len(events) + 1)), events
    assert types[-1] == "job.succeeded", types
    assert types.index("step.started") < types.index("increment.started"), types
    assert types[-2] == "step.completed", types
    inc, it, n, percent = 0, -1, 0, 0
    for _, t, e in events:
        data = e["data"]
        if t == "increment.started":
            assert data["increment"] == inc + 1 and data["step"] == 1, data
            inc, it = data["increment"], -1
        elif t == "newton.iteration":
            assert data["increment"] == inc and data["iteration"] > it, (data, it)
            assert data["residual"] >= 0, data
            it = data["iteration"]
        elif t == "increment.converged":
            assert data["increment"] == inc and data["n"] == n + 1 and it >= 0, data
            assert data["newton_iterations"] == it and data["percent"] > percent, data
            n, percent = data["n"], data["percent"]
    assert n == 4 and percent == 100, (n, percent)
    print(f"ok: {len(events)} events in order, {types.count('newton.iteration')} Newton iterations")


def check_run(d, work, msh, mid):
    """(a) the daemon's run equals ductile-solve's on the same files."""
    r = d.request("POST", "/v1/jobs", on(mid, JOB))
    assert r.status == 201 and r.json["title"] == JOB["title"], r
    jid = r.json["id"]
    check_events(d.sse(jid, timeout=300))
    j = d.wait_job(jid, timeout=300)
    assert j["state"] == "succeeded" and j["error"] is None and j["backend"] == BACKEND, j
    assert j["progress"]["increments_completed"] == 4 and j["progress"]["percent"] == 100, j
    s = d.request("GET", f"/v1/jobs/{jid}/results").json
    ref = cli_summary(work, msh, JOB)
    assert s["completed"] is True and s["order"] == 2 and s["max_peeq"] > 0, s
    for k in ("n_increments", "newton_iterations", "pcg_iterations", "plastic_points", "nodes",
              "elements"):
        assert s[k] == ref[k], (k, s[k], ref[k])
    assert [x["newton_iterations"] for x in s["increments"]] == \
        [x["newton_iterations"] for x in ref["increments"]], (s["increments"], ref["increments"])
    for k in ("max_u", "max_peeq"):
        assert close(s[k], ref[k]), (k, s[k], ref[k])
    assert sorted(s["node_sets"]) == sorted(ref["node_sets"]), s["node_sets"].keys()
    for name, ns in ref["node_sets"].items():
        for k in ("RF", "U_mean"):  # relative to the vector's largest component
            scale = max(abs(v) for v in ns[k])
            for a, b in zip(s["node_sets"][name][k], ns[k]):
                assert abs(a - b) <= 1e-12 * scale, (name, k, a, b)
    print(f"ok: daemon = ductile-solve: max |u| {s['max_u']:.12g}, max PEEQ {s['max_peeq']:.6g}, "
          f"root RF {s['node_sets']['root']['RF'][1]:.12g}, {s['newton_iterations']} Newton "
          f"iterations")
    return ref


def check_cancel(d, work):
    """(b) a running order-P job cancelled: cancelled within 20 s, the daemon goes on."""
    mid = upload(d, gmsh(work, "large", 16, 4), "large.msh")["id"]
    job = copy.deepcopy(JOB)
    job["steps"][0]["increments"]["count"] = 20
    jid = d.request("POST", "/v1/jobs", on(mid, job)).json["id"]
    deadline = time.time() + 120
    while True:
        evs, _ = d.poll_events(jid)
        if any(e["type"] == "newton.iteration" for e in evs):
            break
        assert time.time() < deadline, ("no Newton iteration", evs)
        time.sleep(0.05)
    t0 = time.time()
    r = d.request("POST", f"/v1/jobs/{jid}/cancel")
    assert r.status == 202 and r.json["cancel_requested"] is True, r
    j = d.wait_job(jid, timeout=20)
    took = time.time() - t0
    assert j["state"] == "cancelled" and j["error"]["code"] == "cancelled", j
    assert j["progress"]["increments_completed"] < 20, j
    types = [t for _, t, _ in d.sse(jid)]
    assert types[-1] == "job.cancelled" and "job.succeeded" not in types, types
    print(f"ok: running order-P job cancelled {took:.1f} s after the request")
    return mid


def check_refusals(d, mid):
    """(c) jobs outside the order-P subset: 422 with the key's path; nothing stored."""
    before = d.request("GET", "/v1/jobs?limit=1000").json["items"]
    two = copy.deepcopy(JOB)
    two["steps"].append(copy.deepcopy(two["steps"][0]))
    explicit = copy.deepcopy(JOB)
    explicit["steps"][0]["procedure"] = "explicit"
    extra = copy.deepcopy(JOB)
    extra["steps"][0]["boundary"][1]["amplitude"] = "ramp"
    cases = [(two, "steps", "one static step"),
             (explicit, "steps[0].procedure", "not supported on an order-P mesh"),
             (extra, "steps[0].boundary[1].amplitude", "not supported on an order-P mesh")]
    for job, path, words in cases:
        r = d.request("POST", "/v1/jobs", on(mid, job))
        assert r.status == 422, r
        e = r.json["error"]
        assert e["code"] == "invalid_job" and e["details"]["path"] == path, e
        assert words in e["message"] and d.data_dir not in e["message"], e
        print(f"ok: refused: {e['message']}")
    assert d.request("GET", "/v1/jobs?limit=1000").json["items"] == before, "a refused job was stored"


def check_truncated(d, msh):
    """(d) a truncated order-P file: 422 invalid_mesh with its file and line; nothing stored."""
    with open(msh, "rb") as f:
        text = f.read()
    lines = text.split(b"\n")
    cut = b"\n".join(lines[: int(len(lines) * 0.8)]) + b"\n"
    before = int(d.sql("SELECT COUNT(*) FROM meshes")[0][0])
    r = d.request("POST", "/v1/meshes?name=cut.msh", cut, MSH)
    assert r.status == 422, r
    e = r.json["error"]
    assert e["code"] == "invalid_mesh" and e["details"]["file"] == "cut.msh", e
    assert e["details"]["line"] > 0 and e["message"].startswith(f"cut.msh:{e['details']['line']}:"), e
    assert int(d.sql("SELECT COUNT(*) FROM meshes")[0][0]) == before, "a refused mesh was stored"
    print(f"ok: truncated order-P file refused: {e['message']}")


def same_summary(s, ref, where):
    """summary.json s equals ref: numbers to 1e-12 relative (of a vector's largest entry),
    everything else exactly; the message (it names the run) excepted."""
    def walk(a, b, path):
        if isinstance(b, dict):
            assert isinstance(a, dict) and sorted(a) == sorted(b), (where, path, a, b)
            for k in b:
                if path or k != "message":
                    walk(a[k], b[k], path + "." + k)
        elif isinstance(b, list) and b and all(isinstance(x, float) for x in b):
            scale = max(abs(x) for x in b)
            assert len(a) == len(b) and all(abs(x - y) <= 1e-12 * scale for x, y in zip(a, b)), \
                (where, path, a, b)
        elif isinstance(b, list):
            assert isinstance(a, list) and len(a) == len(b), (where, path, a, b)
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, "%s[%d]" % (path, i))
        elif isinstance(b, float):
            assert close(a, b) or abs(a - b) <= 1e-300, (where, path, a, b)
        else:
            assert a == b, (where, path, a, b)
    walk(s, ref, "")


def resumed_events(d, jid, cut_type):
    """The events of a job resumed from its checkpoint: (kept, converged n before the cut,
    after it, increments started after it)."""
    events = d.sse(jid, timeout=60)
    types = [t for _, t, _ in events]
    assert [i for i, _, _ in events] == list(range(1, len(events) + 1)), events
    assert "job.restarted" not in types and types[-1] == "job.succeeded", types
    cut = types.index(cut_type)
    res = events[types.index("job.resumed")][2]["data"]
    kept = res["increments_kept"]
    assert res["resumed"] is True and res["attempt"] == 2, res
    assert res["message"].startswith("resumed from checkpoint: step 1 at load factor "), res
    assert f"{kept} increments kept (not recomputed)" in res["message"], res
    conv = [(i, e["data"]["n"]) for i, t, e in events if t == "increment.converged"]
    before = [n for i, n in conv if i <= cut]
    after = [n for i, n in conv if i > cut]
    started_after = [e["data"]["increment"] for i, t, e in events
                     if t == "increment.started" and i > cut]
    return kept, before, after, started_after


def check_restart(binary, mid_job, data, ref):
    """(e) interrupted by SIGTERM, resumed from its checkpoint at the next start."""
    env_ = env({"DUCTILED_TEST_ITERATION_DELAY_MS": "50"})
    with started(binary, env_, data_dir=data) as d:
        jid = d.request("POST", "/v1/jobs", mid_job).json["id"]
        deadline = time.time() + 120
        while d.request("GET", f"/v1/jobs/{jid}").json["progress"]["increments_completed"] < 1:
            assert time.time() < deadline, "the job made no progress"
            time.sleep(0.05)
    assert os.path.exists(os.path.join(attempt_dir(data, jid, 1), "checkpoint.ckpt"))
    with started(binary, env_, data_dir=data) as d:
        j = d.wait_job(jid, timeout=300)
        assert j["state"] == "succeeded" and j["attempts"] == 2, j
        kept, before, after, started_after = resumed_events(d, jid, "job.interrupted")
        assert 1 <= kept < 4 and before == list(range(1, kept + 1)), (kept, before)
        assert after == list(range(kept + 1, 5)) and started_after == after, (kept, after)
        s = d.request("GET", f"/v1/jobs/{jid}/results").json
        same_summary(s, ref, "SIGTERM")
        # the job's end removes the checkpoint and the first attempt's directory
        assert not os.path.exists(os.path.join(attempt_dir(data, jid, 2), "checkpoint.ckpt"))
        assert not os.path.exists(attempt_dir(data, jid, 1))
        print(f"ok: interrupted by SIGTERM after {kept} increment(s), resumed from its "
              f"checkpoint: {after} computed, summary.json = the uninterrupted run's")


def crash_after_checkpoint(binary, data, job):
    """Submit job to a daemon that exits (137) once increment 2's checkpoint is written."""
    d = Daemon(binary, env({"DUCTILED_TEST_EXIT_AFTER_CHECKPOINT": "2"}), data_dir=data).start()
    try:
        jid = d.request("POST", "/v1/jobs", job).json["id"]
        assert d.proc.wait(timeout=120) == 137, d.read_log()[-2000:]
    finally:
        d.log.close()
    ck = os.path.join(attempt_dir(data, jid, 1), "checkpoint.ckpt")
    assert os.path.exists(ck), ck
    return jid, ck


def check_kill_after_checkpoint(binary, mid_job, data, work, ref):
    """(g) kill -9 after increment 2's checkpoint: resumed at 3, the same result and files."""
    jid, ck = crash_after_checkpoint(binary, data, mid_job)
    saved = os.path.join(work, "g.ckpt")
    shutil.copyfile(ck, saved)
    with started(binary, env(), data_dir=data) as d:
        j = d.wait_job(jid, timeout=300)
        assert j["state"] == "succeeded" and j["attempts"] == 2, j
        kept, before, after, started_after = resumed_events(d, jid, "job.recovered")
        # increment 2 was checkpointed but not announced: the next attempt announces it
        assert (kept, before, after, started_after) == (2, [1], [2, 3, 4], [3, 4]), \
            (kept, before, after, started_after)
        s = d.request("GET", f"/v1/jobs/{jid}/results").json
        same_summary(s, ref, "kill -9")
        inc = d.request("GET", f"/v1/jobs/{jid}/results/increments").json["items"]
        assert [i["n"] for i in inc] == [1, 2, 3, 4] and all(i["vtu"] for i in inc), inc
        for n in (1, 4):
            r = d.request("GET", f"/v1/jobs/{jid}/results/increments/{n}/vtu")
            assert r.status == 200 and b'type="UnstructuredGrid" version="2.2"' in r.body[:300], r
        print("ok: kill -9 after checkpoint 2: increment 2 announced by the next attempt, 3 and 4 "
              "computed, summary.json and the 4 VTUs as the uninterrupted run's")
    return saved


def restarted_events(d, jid, words):
    """A job whose checkpoint was refused: job.restarted naming why, run from increment 1."""
    j = d.wait_job(jid, timeout=300)
    assert j["state"] == "succeeded" and j["attempts"] == 2, j
    events = d.sse(jid, timeout=60)
    types = [t for _, t, _ in events]
    assert "job.resumed" not in types and types[-1] == "job.succeeded", types
    cut = types.index("job.restarted")
    msg = events[cut][2]["data"]["message"]
    assert events[cut][2]["data"]["resumed"] is False and words in msg, msg
    assert d.data_dir not in msg, msg
    after = [e["data"]["n"] for _, t, e in events[cut:] if t == "increment.converged"]
    assert after == [1, 2, 3, 4], after
    assert "checkpoint not usable" in d.read_log(), "the refusal is not logged"
    return msg


def check_corrupt_checkpoint(binary, mid_job, data, ref):
    """(h) a corrupt checkpoint: refused, the job runs from the beginning."""
    jid, ck = crash_after_checkpoint(binary, data, mid_job)
    with open(ck, "r+b") as f:
        f.seek(os.path.getsize(ck) // 2)
        b = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([b[0] ^ 0x20]))
    with started(binary, env(), data_dir=data) as d:
        msg = restarted_events(d, jid, "is corrupt")
        same_summary(d.request("GET", f"/v1/jobs/{jid}/results").json, ref, "corrupt")
        print(f"ok: corrupt checkpoint refused, run from the beginning: {msg}")


def check_foreign_checkpoint(binary, mid_job, data, saved, ref):
    """(i) another job's checkpoint: refused, the job runs from the beginning, its own result."""
    other = copy.deepcopy(mid_job)
    other["steps"][0]["boundary"][1]["displacement"]["y"] = -0.04
    jid, ck = crash_after_checkpoint(binary, data, other)
    shutil.copyfile(saved, ck)
    with started(binary, env(), data_dir=data) as d:
        msg = restarted_events(d, jid, "another job or mesh")
        s = d.request("GET", f"/v1/jobs/{jid}/results").json
        assert s["completed"] and s["u_min"][1] == -0.04 and not close(s["max_u"], ref["max_u"]), s
        print(f"ok: another job's checkpoint refused, run from the beginning: {msg}")


def check_does_not_fit(binary, msh):
    """(f) the order-P estimate against max_job_bytes."""
    limit = 1000000
    with started(binary, env({"DUCTILED_MAX_JOB_BYTES": str(limit)})) as d:
        mid = upload(d, msh, "cantilever.msh")["id"]
        r = d.request("POST", "/v1/jobs", on(mid, JOB))
        assert r.status == 422, r
        e = r.json["error"]
        assert e["code"] == "does_not_fit" and "order-P solver" in e["message"], e
        assert "runs on the host" in e["message"] and e["details"]["device"].startswith("host ("), e
        assert e["details"]["limit_bytes"] == limit < e["details"]["estimate_bytes"] < 4 * limit, e
        assert d.request("GET", "/v1/jobs").json["items"] == [], "a refused job was stored"
        print(f"ok: refused by memory: {e['message']}")


def main(binary):
    if not GPU and not shutil.which("gmsh"):
        print("SKIP: gmsh is not on PATH (it makes the order-P meshes)")
        sys.exit(77)
    assert SOLVE and os.access(SOLVE, os.X_OK), "usage: test_highorder_jobs.py DUCTILED DUCTILE_SOLVE"
    work = tempfile.mkdtemp(prefix="dt_ho_jobs_")
    data = tempfile.mkdtemp(prefix="ductiled-ho-")
    try:
        msh = STORED_MSH if GPU else gmsh(work, "cantilever", 8, 2)
        with started(binary, env({"DUCTILED_TEST_ITERATION_DELAY_MS": "50"}), data_dir=data) as d:
            mid = check_upload(d, msh)
            check_truncated(d, msh)
            check_refusals(d, mid)
            ref = check_run(d, work, msh, mid)
            if not GPU:  # its larger mesh needs gmsh; the cancel is the host's code anyway
                check_cancel(d, work)
            r = d.request("POST", "/v1/jobs", on(mid, JOB))  # the daemon goes on
            assert r.status == 201, r
            assert d.wait_job(r.json["id"], timeout=300)["state"] == "succeeded"
        check_restart(binary, on(mid, JOB), data, ref)
        saved = check_kill_after_checkpoint(binary, on(mid, JOB), data, work, ref)
        check_corrupt_checkpoint(binary, on(mid, JOB), data, ref)
        check_foreign_checkpoint(binary, on(mid, JOB), data, saved, ref)
        check_does_not_fit(binary, msh)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
