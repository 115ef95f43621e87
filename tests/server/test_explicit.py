"""An explicit dynamics job (MITC4 shells) through the daemon: submitted over HTTP and followed
on its event stream. The explicit.progress events advance in time to 100 %; every output frame
is an increment.converged event with an energy object whose balance is round-off; the job
succeeds and its checkpoint is removed; the frames' VTUs, history.csv and
energy.csv (the events' numbers) are served, and summary.json has the explicit block (a static
job's energy.csv is 404: test_api_session.py). Explicit jobs with a bad field are refused at
submission (422, naming the field by its JSON path)."""
import csv
import io
import math
import os

from dtserver import SPEC, attempt_dir, explicit_job, run, started, validate

PERIOD, FRAMES = 0.04, 10
TERMS = ("kinetic", "internal_work", "external_work", "damping_work")
ENERGY_COLUMNS = ["step", "frame", "time", "kinetic", "internal_work", "external_work", "damping_work",
                  "balance", "strain_energy", "hourglass_energy"]


def schema(name):
    return {"$ref": f"#/components/schemas/{name}"}


def check_progress(events):
    """explicit.progress: in the spec, time and percent rising, 0 < percent <= 100, the last one
    at the end of the step."""
    prog = [d["data"] for _, t, d in events if t == "explicit.progress"]
    assert prog, "no explicit.progress event"
    for p in prog:
        validate(p, schema("ExplicitProgress"), "explicit.progress")
        assert p["step"] == 1 and 0 < p["percent"] <= 100, p
        assert 0 < p["time"] <= PERIOD * (1 + 1e-12) and p["time_step"] > 0, p
        assert 0 < p["time_steps"] <= p["time_steps_step"] and p["eta_seconds"] >= 0, p
    for a, b in zip(prog, prog[1:]):
        assert b["time"] > a["time"] and b["percent"] > a["percent"], (a, b)
        assert b["time_steps"] > a["time_steps"], (a, b)
    last = prog[-1]
    assert last["percent"] == 100 and last["time_steps"] == last["time_steps_step"], last
    assert math.isclose(last["time"], PERIOD, rel_tol=1e-9), last
    print(f"{len(prog)} explicit.progress event(s), the last: {last}")


def check_energy(events):
    """increment.converged of each frame with its energy object: finite, balanced to round-off
    relative to the largest term, at the frames' times. Returns the energy objects."""
    conv = [d["data"] for _, t, d in events if t == "increment.converged"]
    assert [c["n"] for c in conv] == list(range(1, FRAMES + 1)), conv
    energies = []
    for c in conv:
        e = c.get("energy")
        assert e is not None, c
        validate(e, schema("EnergyFrame"), "increment.converged energy")
        assert all(isinstance(v, float) and math.isfinite(v) for v in e.values()), e
        largest = max(abs(e[k]) for k in TERMS)
        assert largest > 0 and abs(e["balance"]) < 1e-5 * largest, e
        energies.append(e)
    times = [e["time"] for e in energies]
    assert all(b > a for a, b in zip(times, times[1:])), times
    assert math.isclose(times[-1], PERIOD, rel_tol=1e-9), times
    assert energies[-1]["external_work"] > 0 and energies[-1]["internal_work"] > 0, energies[-1]
    worst = max(abs(e["balance"]) / max(abs(e[k]) for k in TERMS) for e in energies)
    print(f"{len(energies)} frames with energy; worst |balance| / largest term {worst:.2e}")
    return energies


def check_results(d, jid, energies):
    incs = d.request("GET", f"/v1/jobs/{jid}/results/increments").json["items"]
    assert [it["n"] for it in incs] == list(range(1, FRAMES + 1)) and all(it["vtu"] for it in incs), incs
    for n in (1, FRAMES):
        r = d.request("GET", f"/v1/jobs/{jid}/results/increments/{n}/vtu")
        assert r.status == 200 and b"<VTKFile" in r.body[:400], r
        f = d.request("GET", f"/v1/jobs/{jid}/results/increments/{n}?fields=U").json
        assert f["n"] == n and len(f["U"]) == 81, f.keys()
    r = d.request("GET", f"/v1/jobs/{jid}/results/energy.csv")
    assert r.status == 200 and r.headers["content-type"].startswith("text/csv"), r
    assert f'filename="{jid}-energy.csv"' in r.headers["content-disposition"], r.headers
    rows = list(csv.reader(io.StringIO(r.body.decode())))
    assert rows[0] == ENERGY_COLUMNS, rows[0]
    assert len(rows) == FRAMES + 1, rows
    for row, e in zip(rows[1:], energies):
        v = dict(zip(rows[0], row))
        assert int(v["step"]) == 1, v
        for k in ("time", "balance", "strain_energy") + TERMS:
            assert math.isclose(float(v[k]), e[k], rel_tol=1e-12, abs_tol=1e-300), (k, v, e)
    assert [int(row[1]) for row in rows[1:]] == list(range(1, FRAMES + 1)), rows
    hist = d.request("GET", f"/v1/jobs/{jid}/results/history.csv").body.decode().strip().splitlines()
    assert len(hist) == FRAMES + 1, hist
    s = d.request("GET", f"/v1/jobs/{jid}/results").json
    assert s["completed"] is True and s["n_increments"] == FRAMES, s
    validate(s["explicit"], SPEC["components"]["schemas"]["Summary"]["properties"]["explicit"], "explicit")
    x = s["explicit"]
    assert x["time_steps"] > FRAMES and x["time_step"] > 0 and 0 <= x["energy_balance"] < 1e-5, x
    assert len(s["files"]["vtu"]) == FRAMES, s["files"]
    print(f"summary: {x}")


def check_refused(d):
    """Bad explicit jobs: 422 invalid_job naming the field (its JSON path)."""
    cases = []
    job = explicit_job()
    del job["materials"][0]["density"]
    cases.append((job, "materials[0].density", "density"))
    job = explicit_job()
    job["steps"][0]["explicit"]["time"] = -1
    cases.append((job, "steps[0].explicit.time", "must be > 0"))
    job = explicit_job()
    job["steps"][0]["explicit"]["output"] = {"frames": 0}
    cases.append((job, "steps[0].explicit.output.frames", "frames"))
    for job, path, words in cases:
        r = d.request("POST", "/v1/jobs", job)
        assert r.status == 422, r
        err = r.json["error"]
        assert err["code"] == "invalid_job" and err["details"]["path"] == path, err
        assert path in err["message"] and words in err["message"], err
        print(f"refused: {err['message']}")
    assert d.request("GET", "/v1/jobs").json["items"] == [], "a refused job was stored"


def main(binary):
    with started(binary) as d:
        check_refused(d)
        r = d.request("POST", "/v1/jobs", explicit_job(PERIOD, FRAMES))
        # an idle worker may take the job before the response is written
        assert r.status == 201 and r.json["state"] in ("queued", "running"), r
        jid = r.json["id"]
        events = d.sse(jid, timeout=120)
        types = [t for _, t, _ in events]
        assert [i for i, _, _ in events] == list(range(1, len(events) + 1)), events
        assert types[-1] == "job.succeeded", types
        assert not {"job.failed", "job.restarted", "newton.iteration"} & set(types), types
        check_progress(events)
        energies = check_energy(events)
        j = d.request("GET", f"/v1/jobs/{jid}").json
        assert j["state"] == "succeeded" and j["error"] is None and j["backend"] == "cpu", j
        assert j["progress"]["increments_completed"] == FRAMES and j["progress"]["percent"] == 100, j
        assert not os.path.exists(os.path.join(attempt_dir(d.data_dir, jid), "checkpoint.ckpt"))
        check_results(d, jid, energies)


if __name__ == "__main__":
    run(main)
