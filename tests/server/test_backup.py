"""Online backup (`ductiled admin backup FILE`, server/store_backup.c) and the restore of
docs/operations.md.

A daemon holds a mesh, a finished job on it with results, a user alice with a token and a job of
hers, and runs a longer job. While that job runs and while a large upload is being spooled to
<data>/tmp, `admin backup` copies the database: exit status 0, a new file of mode 0600 that
SQLite's quick_check finds sound, out of WAL mode, at the latest schema version. The upload
finishes afterwards (the command leaves the daemon's spool files alone) and is not in the copy.
A second backup to the same name is refused (exit status 1, "exists already"), as is one into a
directory that does not exist.

The restore: the copy as ductile.db of a new data directory, then the files of meshes and jobs
copied while the first daemon still runs, and admin.token. A second daemon started there lists
the same meshes and jobs as the first had at the backup, serves the finished job's results
identical to the first's, accepts alice's token and shows her only her job, finishes the job
that was running (queued again by recovery) with the right displacement, and removes the mesh
file uploaded after the backup, which no row of the copy names."""
import json
import os
import shutil
import sqlite3
import stat
import tempfile
import time

import dtserver
from dtserver import ROOT, box_job, run, started, unit_cube


def tolerant_copy(src, dst):
    """Copy a file of a running daemon's data directory; one removed meanwhile is skipped (as
    rsync reports a vanished file)."""
    try:
        shutil.copy2(src, dst)
    except FileNotFoundError:
        pass


def spool_upload(d):
    """A mesh upload stopped halfway, once the daemon spools it to <data>/tmp: (connection, rest)."""
    body = json.dumps(unit_cube()["mesh"]).encode() + b" " * (2 << 20)
    c = d.conn(60)
    c.putrequest("POST", "/v1/meshes?name=late")
    c.putheader("Authorization", "Bearer " + d.token)
    c.putheader("Content-Type", "application/json")
    c.putheader("Content-Length", str(len(body)))
    c.endheaders()
    half = (3 << 20) // 2
    c.send(body[:half])
    spool = os.path.join(d.data_dir, "tmp")
    t0 = time.time()
    while not os.listdir(spool):
        assert time.time() - t0 < 30, "the upload was not spooled"
        time.sleep(0.05)
    return c, body[half:]


def check_copy(path):
    mode = stat.S_IMODE(os.stat(path).st_mode)
    assert mode == 0o600, oct(mode)
    latest = max(int(f[:3]) for f in os.listdir(os.path.join(ROOT, "schema", "migrations")) if f.endswith(".sql"))
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert db.execute("PRAGMA user_version").fetchone()[0] == latest
    finally:
        db.close()
    for side in ("-wal", "-shm", "-journal"):
        assert not os.path.exists(path + side), side
    leftovers = [f for f in os.listdir(os.path.dirname(path)) if f.startswith(os.path.basename(path) + ".")]
    assert not leftovers, leftovers


def ids(d, path, token="admin"):
    return {x["id"] for x in d.request("GET", path, token=token).json["items"]}


def main(binary):
    dtserver.skip_unless_sqlite("SQLite's backup file is restored as ductile.db (test_dump.py: pg_dump)")
    tmp = tempfile.mkdtemp(prefix="ductiled-backup-")
    try:
        with started(binary) as d:
            mesh = d.request("POST", "/v1/meshes?name=cube", unit_cube()["mesh"]).json["id"]
            job = unit_cube()
            del job["mesh"]
            job["mesh_id"] = mesh
            done = d.request("POST", "/v1/jobs", job).json["id"]
            assert d.wait_job(done)["state"] == "succeeded"
            summary = d.request("GET", f"/v1/jobs/{done}/results").json
            p = d.cli("token", "create", "--user", "alice", "--name", "laptop")
            assert p.returncode == 0, p.stderr
            alice = p.stdout.strip()
            hers = d.request("POST", "/v1/jobs", unit_cube(), token=alice).json["id"]
            assert d.wait_job(hers)["state"] == "succeeded"
            long_job = d.request("POST", "/v1/jobs", box_job(9, increments=(20, 20))).json["id"]
            d.wait_job(long_job, states=("running", "succeeded"))
            conn, rest = spool_upload(d)

            backup = os.path.join(tmp, "ductile-backup.db")
            p = d.cli("admin", "backup", backup)
            assert p.returncode == 0 and "backed up the database to" in p.stderr, (p.returncode, p.stderr)
            print(p.stderr.strip().splitlines()[-1])
            jobs_then, meshes_then = ids(d, "/v1/jobs"), ids(d, "/v1/meshes")
            state_then = d.request("GET", f"/v1/jobs/{long_job}").json["state"]

            conn.send(rest)
            r = conn.getresponse()
            assert r.status == 201, (r.status, r.read())
            late = json.loads(r.read())["id"]
            conn.close()
            print(f"the upload spooled during the backup is stored: mesh {late}")

            check_copy(backup)
            p = d.cli("admin", "backup", backup)
            assert p.returncode == 1 and "exists already" in p.stderr, (p.returncode, p.stderr)
            p = d.cli("admin", "backup", os.path.join(tmp, "no-such-dir", "b.db"))
            assert p.returncode == 1 and "cannot create a file beside" in p.stderr, (p.returncode, p.stderr)
            assert not os.path.exists(os.path.join(tmp, "no-such-dir"))

            restored = os.path.join(tmp, "restored")
            os.makedirs(restored)
            shutil.copyfile(backup, os.path.join(restored, "ductile.db"))
            for sub in ("meshes", "jobs"):
                shutil.copytree(os.path.join(d.data_dir, sub), os.path.join(restored, sub),
                                copy_function=tolerant_copy)
            shutil.copy2(os.path.join(d.data_dir, "admin.token"), restored)

            with started(binary, data_dir=restored) as d2:
                assert d2.token == d.token
                assert ids(d2, "/v1/meshes") == meshes_then == {mesh}, (ids(d2, "/v1/meshes"), meshes_then)
                assert ids(d2, "/v1/jobs") == jobs_then == {done, hers, long_job}, ids(d2, "/v1/jobs")
                assert d2.request("GET", f"/v1/jobs/{done}/results").json == summary
                assert ids(d2, "/v1/jobs", token=alice) == {hers}
                j = d2.wait_job(long_job, timeout=240)
                assert j["state"] == "succeeded", j
                uz = d2.request("GET", f"/v1/jobs/{long_job}/results").json["increments"][-1]["monitors"]["uz_top"]
                assert abs(uz - 5.272727e-3) < 1e-8, uz
                assert f"meshes/{late}" in d2.read_log(), "the mesh uploaded after the backup was not swept"
                print(f"restored: {len(jobs_then)} jobs, {len(meshes_then)} mesh, alice's token; the job "
                      f"{state_then} at the backup ended succeeded, u_z {uz:.6e}")
            assert d.wait_job(long_job, timeout=240)["state"] == "succeeded"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run(main)
