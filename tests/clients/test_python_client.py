"""The Python client (clients/python) against a real ductiled: importable without installing,
installable with pip offline; submit, events (SSE, replay, polling), wait, results as lists
(and arrays when numpy is present), meshes, cancel, and errors (wrong token, unknown id,
server down, rejected). Runs docs/clients_example.py too.

usage: test_python_client.py DUCTILED"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "server"))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
import dtserver  # noqa: E402
import jobs  # noqa: E402
import ductile_client as dc  # noqa: E402


def main(binary):
    work = tempfile.mkdtemp(prefix="dt-py-")
    try:
        with dtserver.started(binary) as d:
            session(d, work)
        try:
            dc.Client(f"http://127.0.0.1:{d.port}", d.token).health()
            raise AssertionError("no error with the server down")
        except dc.ConnectionFailed as e:
            assert "cannot reach the server" in str(e) and e.exit_code == 3, e
            print("ok: server down:", e)
        install(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def session(d, work):
    url = f"http://127.0.0.1:{d.port}"
    c = dc.Client(url, d.token, numpy=False)
    assert c.health()["status"] == "ok"
    beam = jobs.beam_job(10, 2, 2, 4, -11.0)

    job = c.submit(beam)
    assert job["state"] in ("queued", "running")  # a free worker may take it before the reply
    evs = list(c.events(job["id"]))
    assert [e["seq"] for e in evs] == list(range(1, len(evs) + 1))
    assert evs[-1]["type"] == "job.succeeded"
    assert [e["seq"] for e in c.events(job["id"], after=5)][0] == 6  # replay from Last-Event-ID
    polled = list(c.events(job["id"], follow=False))
    assert [e["seq"] for e in polled] == [e["seq"] for e in evs]
    final = c.wait(job["id"], check=True)
    assert final["state"] == "succeeded"
    print("ok: submit, events (SSE, replay, polling), wait")

    hist = c.history(job["id"])
    assert isinstance(hist["uz_tip"], list) and len(hist["uz_tip"]) == 4 and hist["uz_tip"][-1] < 0
    assert c.summary(job["id"])["completed"] is True
    incs = c.increments(job["id"])
    assert [i["n"] for i in incs] == [1, 2, 3, 4]
    f = c.fields(job["id"], 4)
    assert isinstance(f["U"], list) and len(f["U"]) == len(f["node_ids"]) == 11 * 3 * 3
    assert len(f["MISES"]) == len(f["element_ids"]) == 40
    paths = c.download_vtu(job["id"], os.path.join(work, "vtu"))
    assert len(paths) == 4 and paths[0].read_bytes().startswith(b"<?xml")  # binary appended VTU
    assert c.history_csv(job["id"]).startswith("step,increment")
    try:
        import numpy as np  # noqa: F401
        cn = dc.Client(url, d.token)
        assert cn.numpy and cn.fields(job["id"], 4)["U"].shape == (len(f["node_ids"]), 3)
        assert cn.history(job["id"])["uz_tip"].shape == (4,)
        print("ok: results as numpy arrays")
    except ImportError:
        assert dc.Client(url, d.token).numpy is False
        print("ok: results as lists (numpy not installed)")

    # files, meshes
    path = os.path.join(work, "beam.json")
    with open(path, "w") as fp:
        json.dump(beam, fp)
    m = c.upload_mesh(path)
    assert m["name"] == "beam.json" and m["n_elements"] == 40
    assert any(x["id"] == m["id"] for x in c.meshes())
    j2 = c.submit(path, mesh=m["id"])
    assert j2["mesh_id"] == m["id"]
    assert c.wait(j2["id"])["state"] == "succeeded"
    assert any(x["id"] == j2["id"] for x in c.jobs(state="succeeded"))
    assert c.jobs(state=["queued", "running"]) == []
    c.delete_job(j2["id"])
    c.delete_mesh(m["id"])
    print("ok: files, meshes, job list filters, delete")

    # cancel a running job
    long = c.submit(jobs.beam_job(40, 4, 6, 200, -11.0))
    for ev in c.events(long["id"]):
        if ev["type"] == "newton.iteration":
            assert c.cancel(long["id"])["cancel_requested"] in (True, False)
            break
    try:
        c.wait(long["id"], check=True, timeout=120)
        raise AssertionError("no JobFailed")
    except dc.JobFailed as e:
        assert e.job["state"] == "cancelled", e.job
    try:
        c.cancel(long["id"])
        raise AssertionError("no Rejected")
    except dc.Rejected as e:
        assert e.status == 409 and e.code == "job_finished", e
    print("ok: cancel; cancel again -> Rejected job_finished")

    # errors
    for bad in (dc.Client(url, "dt_0000000000000000_" + "0" * 64), dc.Client(url, "nonsense")):
        try:
            bad.jobs()
            raise AssertionError("no AuthError")
        except dc.AuthError as e:
            assert e.status == 401 and "token" in str(e) and e.exit_code == 4, e
            msg = str(e)
    print("ok: wrong token ->", msg)
    try:
        c.job("j-0123456789abcdef")
        raise AssertionError("no NotFound")
    except dc.NotFound as e:
        assert e.status == 404, e
        msg = str(e)
    try:
        c.job("../../etc/passwd")
        raise AssertionError("no NotFound")
    except dc.NotFound:
        pass
    print("ok: unknown id ->", msg)
    try:
        c.submit({"ductile": 1, "title": "no mesh"})
        raise AssertionError("no Rejected")
    except dc.Rejected as e:
        assert e.status == 422 and e.code == "invalid_job", e
        print("ok: invalid job ->", e)

    # settings from the environment / automatic admin.token; the example script
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DUCTILE_", "DUCTILED_"))}
    env.update(DUCTILE_URL=url, DUCTILED_DATA_DIR=d.data_dir, HOME=work,
               PYTHONPATH=os.path.join(ROOT, "clients", "python"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "clients_example.py"),
                        os.path.join(ROOT, "examples", "unit_cube.json")],
                       env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "final state: succeeded" in r.stdout and "as expected: NotFound" in r.stdout, r.stdout
    print("ok: docs/clients_example.py with the automatic admin.token")


def install(work):
    """pip install clients/python works offline (in-tree build backend) into a target folder."""
    target = os.path.join(work, "site")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "-q",
                        "--target", target, os.path.join(ROOT, "clients", "python")],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0 and "No module named pip" in r.stderr:
        print("SKIP pip install: no pip")
        return
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-c", "import ductile_client, sys; print(ductile_client.__file__)"],
                       env=dict(os.environ, PYTHONPATH=target), cwd=work, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith(target), (r.stdout, r.stderr)
    assert os.path.exists(os.path.join(target, "ductile_client", "py.typed"))
    print("ok: pip install clients/python (offline)")


if __name__ == "__main__":
    dtserver.run(main)
