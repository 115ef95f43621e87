"""The `ductile` CLI against a real ductiled: submit, watch to completion, status, results
(--json, --csv, --vtu), meshes, cancel, and the error cases (wrong token, unknown id, server
down, bad usage) with their messages and exit codes.

usage: test_client_cli.py DUCTILED DUCTILE_CLI"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))
import dtserver  # noqa: E402
import test_import  # noqa: E402
import jobs  # noqa: E402

CLI = None


def cli(d, *args, env=None, token=True, expect=0):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("DUCTILE_", "DUCTILED_"))}
    e["HOME"] = d.data_dir + "-home"  # no user config file
    if d is not None:
        e["DUCTILE_URL"] = f"http://127.0.0.1:{d.port}"
        if token:
            e["DUCTILE_TOKEN"] = d.token
    e.update(env or {})
    r = subprocess.run([CLI, *args], env=e, capture_output=True, text=True, timeout=120)
    if expect is not None and r.returncode != expect:
        raise AssertionError(f"ductile {' '.join(args)}: exit {r.returncode}, expected {expect}\n"
                             f"stdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-2000:]}")
    return r


def main(binary):
    global CLI
    CLI = sys.argv[2]
    work = tempfile.mkdtemp(prefix="dt-cli-")
    try:
        beam = os.path.join(work, "beam.json")
        long = os.path.join(work, "long.json")
        with open(beam, "w") as f:
            json.dump(jobs.beam_job(10, 2, 2, 4, -11.0), f)
        with open(long, "w") as f:
            json.dump(jobs.beam_job(40, 4, 6, 200, -11.0), f)
        with dtserver.started(binary) as d:
            run_session(d, work, beam, long)
        # server down: the daemon has stopped, its port is closed
        r = cli(d, "status", expect=3)
        assert "cannot reach the server" in r.stderr and "is ductiled running" in r.stderr, r.stderr
        r = cli(d, "--json", "status", expect=3)
        print("ok: server down -> exit 3:", r.stderr.splitlines()[0])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run_session(d, work, beam, long):
    # health, version, help
    r = cli(d, "health")
    assert " ok " in r.stdout, r.stdout
    assert cli(d, "--version").stdout.startswith("ductile ")
    assert "exit codes" in cli(d, "--help").stdout

    # submit + watch to completion
    jid = cli(d, "submit", beam).stdout.strip()
    assert jid.startswith("j-") and len(jid) == 18, jid
    r = cli(d, "watch", jid)
    assert r.stdout.strip() == f"{jid} succeeded", r.stdout
    assert "increment 4 converged" in r.stderr and "job.succeeded" in r.stderr, r.stderr
    print("ok: submit + watch:", jid)

    # watch --json: NDJSON events, seq 1.. without gaps, terminal last
    r = cli(d, "--json", "watch", jid)
    evs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1)), "gaps in the replay"
    assert evs[-1]["type"] == "job.succeeded"
    assert any(e["type"] == "newton.iteration" for e in evs)

    # status (one, list, json)
    r = cli(d, "status", jid)
    assert "succeeded" in r.stdout and "100.0%" in r.stdout, r.stdout
    j = json.loads(cli(d, "--json", "status", jid).stdout)
    assert j["state"] == "succeeded" and j["progress"]["increments_completed"] == 4
    # the solver's phases, as the daemon recorded them when the job ended
    t = j["timings"]
    assert all(t[k] >= 0 for k in ("setup", "assembly", "stress_update", "linear_solver", "loads", "output")), t
    assert 0 < t["preconditioner_setup"] <= t["linear_solver"], t  # a part of the linear solver
    line = next(x for x in r.stdout.splitlines() if x.startswith("phases"))
    assert f"linear solver {t['linear_solver']:.3f} (preconditioner setup {t['preconditioner_setup']:.3f})" in line \
        and f"loads {t['loads']:.3f}" in line, line
    page = json.loads(cli(d, "status", "--json").stdout)
    assert page["items"][0]["id"] == jid
    assert jid in cli(d, "status").stdout

    # results
    s = json.loads(cli(d, "results", jid, "--json").stdout)
    assert s["completed"] and len(s["increments"]) == 4
    assert "uz_tip" in cli(d, "results", jid).stdout
    csv = cli(d, "results", jid, "--csv").stdout.splitlines()
    assert csv[0].startswith("step,increment") and len(csv) == 5, csv
    vdir = os.path.join(work, "vtu")
    cli(d, "results", jid, "--vtu", vdir)
    files = sorted(os.listdir(vdir))
    assert files == ["increment_0001.vtu", "increment_0002.vtu", "increment_0003.vtu", "increment_0004.vtu", "results.pvd"], files
    with open(os.path.join(vdir, "increment_0004.vtu"), "rb") as f:  # binary appended VTU
        assert b"<UnstructuredGrid>" in f.read()
    f = json.loads(cli(d, "results", jid, "--fields", "4").stdout)
    assert len(f["U"]) == len(f["node_ids"]) and f["MISES"] is not None
    out = os.path.join(work, "h.csv")
    cli(d, "results", jid, "--csv", "-o", out)
    assert open(out).read().startswith("step,")
    print("ok: results --json/--csv/--vtu/--fields")

    # submit --wait --json: the final job document, exit 0
    j = json.loads(cli(d, "--json", "submit", beam, "--wait").stdout)
    assert j["state"] == "succeeded", j

    # meshes: upload (a job file: its mesh), list, show, submit on it, delete
    mid = cli(d, "meshes", "upload", beam, "--name", "beam").stdout.strip()
    assert mid.startswith("m-"), mid
    assert mid in cli(d, "meshes").stdout
    assert json.loads(cli(d, "--json", "meshes", "show", mid).stdout)["n_nodes"] == 11 * 3 * 3
    j = json.loads(cli(d, "--json", "submit", mid, "--job", beam, "--wait").stdout)
    assert j["state"] == "succeeded" and j["mesh_id"] == mid, j
    j = json.loads(cli(d, "--json", "submit", beam, "--job", beam).stdout)  # uploads the mesh first
    assert j["mesh_id"] and j["mesh_id"] != mid
    cli(d, "watch", j["id"], "--quiet")
    cli(d, "meshes", "delete", mid)
    cli(d, "meshes", "show", mid, expect=5)
    print("ok: meshes upload/list/show/delete, submit on a mesh")

    # cancel a running job, --wait: exit 0 once cancelled; then cancel again: 409 -> 6
    lid = cli(d, "submit", long).stdout.strip()
    d.wait_job(lid, states=("running",))
    r = cli(d, "cancel", lid, "--wait")
    assert r.stdout.strip() == f"{lid} cancelled", r.stdout
    r = cli(d, "cancel", lid, expect=6)
    assert "already finished" in r.stderr or "job_finished" in r.stderr, r.stderr
    # watch of a cancelled job: exit 1
    cli(d, "watch", lid, expect=1)
    # a queued job cancelled at once
    l2 = cli(d, "submit", long).stdout.strip()
    l3 = cli(d, "submit", long).stdout.strip()
    r = cli(d, "cancel", l3)
    assert r.stdout.startswith(f"{l3} cancelled"), r.stdout
    cli(d, "cancel", l2, "--wait")
    cli(d, "delete", l3)
    cli(d, "status", l3, expect=5)
    print("ok: cancel (running, queued, finished), delete")

    # error cases
    r = cli(d, "status", env={"DUCTILE_TOKEN": "dt_0000000000000000_" + "0" * 64}, expect=4)
    assert "401" in r.stderr and "token" in r.stderr and "DUCTILE_TOKEN" in r.stderr, r.stderr
    r = cli(d, "--token", "wrong", "--json", "submit", beam, expect=4)
    assert json.loads(r.stdout)["error"]["code"] == "unauthorized"
    print("ok: wrong token -> exit 4:", r.stderr.splitlines()[0])
    r = cli(d, "status", "j-0123456789abcdef", expect=5)
    assert "no job" in r.stderr or "not_found" in r.stderr, r.stderr
    cli(d, "results", "j-0123456789abcdef", expect=5)
    cli(d, "watch", "j-0123456789abcdef", expect=5)
    cli(d, "cancel", "j-0123456789abcdef", expect=5)
    r = cli(d, "status", "../../etc", expect=5)
    assert "not a job id" in r.stderr
    print("ok: unknown id -> exit 5:", r.stderr.strip())
    bad = os.path.join(work, "bad.json")
    with open(bad, "w") as f:
        f.write('{"ductile": 1, "title": "no mesh"}')
    r = cli(d, "submit", bad, expect=6)
    assert "invalid_job" in r.stderr or "422" in r.stderr, r.stderr
    print("ok: invalid job -> exit 6:", r.stderr.strip())
    cli(d, "submit", os.path.join(work, "missing.json"), expect=8)
    cli(d, "frobnicate", expect=2)
    cli(d, "submit", expect=2)
    cli(d, "results", jid, "--csv", "--vtu", "x", expect=2)
    # .inp decks go out as application/x-abaqus-inp and run; a malformed one is refused with its line
    deck = os.path.join(dtserver.ROOT, "tests", "interop", "decks", "hex8_elastic.inp")
    r = cli(d, "--json", "submit", deck, "--wait")
    final = json.loads(r.stdout)
    assert final["state"] == "succeeded" and final["title"].startswith("hex8 (C3D8)"), final
    inp = os.path.join(work, "deck.inp")
    with open(inp, "w") as f:
        f.write("*HEADING\nnot a real deck\n*FREQUENCY\n")
    r = cli(d, "submit", inp, expect=6)
    assert "deck.inp:3:" in r.stderr and "FREQUENCY" in r.stderr, r.stderr
    with open(inp, "w") as f:
        f.write("*HEADING\nincludes\n*INCLUDE, INPUT=/etc/passwd\n")
    r = cli(d, "submit", inp, expect=6)
    assert "*INCLUDE is not allowed" in r.stderr, r.stderr
    # a Gmsh mesh + a JSON job without "mesh" (ductile submit mesh.msh --job loads.json)
    msh, loads = os.path.join(work, "cube.msh"), os.path.join(work, "loads.json")
    with open(msh, "w") as f:
        f.write(test_import.CUBE_MSH)
    with open(loads, "w") as f:
        job = test_import.job_on("m-0000000000000000", "body")
        del job["mesh_id"]
        json.dump(job, f)
    r = cli(d, "--json", "submit", msh, "--job", loads, "--wait")
    final = json.loads(r.stdout)
    assert final["state"] == "succeeded" and final["mesh_id"], final
    assert json.loads(cli(d, "--json", "meshes", "show", final["mesh_id"]).stdout)["format"] == "msh"
    with open(msh, "w") as f:
        f.write(test_import.CUBE_MSH.replace("1 3 2 1 1 1 4 8 5", "1 3 2 1 1 1 4 8"))
    r = cli(d, "submit", msh, "--job", loads, expect=6)
    assert "cube.msh:" in r.stderr, r.stderr
    print("ok: usage/local/deck errors")

    # token and URL from a config file; the admin.token found automatically (loopback)
    conf = os.path.join(work, "client.conf")
    with open(conf, "w") as f:
        f.write(f"# test\nurl = http://127.0.0.1:{d.port}\ntoken = {d.token}\n")
    e = {"DUCTILE_URL": "", "DUCTILE_TOKEN": ""}
    cli(d, "--config", conf, "status", env=e)
    cli(d, "status", env=dict(e, DUCTILE_CONFIG=conf))
    cli(d, "status", token=False, env={"DUCTILED_DATA_DIR": d.data_dir})
    r = cli(d, "status", token=False, env={"DUCTILED_DATA_DIR": work, "DUCTILED_CONFIG": "/nonexistent"}, expect=4)
    assert "no token" in r.stderr, r.stderr
    cli(d, "--config", os.path.join(work, "nope.conf"), "status", expect=2)
    print("ok: config file, DUCTILE_CONFIG, automatic admin.token")


if __name__ == "__main__":
    dtserver.run(main)
