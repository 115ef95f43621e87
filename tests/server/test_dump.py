"""`ductiled admin backup FILE` with a PostgreSQL store (pg_dump's custom format), while a job
runs, and a restore into a new database for a second daemon (docs/operations.md, Several
servers: backup and restore).

The backup is a new file of mode 0600 that pg_restore reads; an existing file is refused and
left as it was; the audit log records store.backup with the dump's size and schema version. The
dump restored with pg_restore into a new database, beside a copy of the data directory, serves
the same users, tokens, meshes and jobs: the finished job and its results, and the job that was
running, which the restored daemon queues again (its lease has ended) and completes."""
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

import dtserver
import pgcluster
from dtserver import box_job, run, started, unit_cube


def main(binary):
    if not dtserver.PG_INFO:
        print("SKIP: needs PostgreSQL (runs as server_pg_dump)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="ductiled-dump-")
    info = pgcluster.load(dtserver.PG_INFO)
    restored_dir = os.path.join(tmp, "restored")
    try:
        with started(binary, {"DUCTILED_TEST_ITERATION_DELAY_MS": "20", "DUCTILED_LEASE_SECONDS": "2"}) as d:
            done = d.request("POST", "/v1/jobs", unit_cube()).json["id"]
            assert d.wait_job(done)["state"] == "succeeded"
            mesh = d.request("POST", "/v1/meshes", unit_cube()["mesh"]).json["id"]
            running = d.request("POST", "/v1/jobs", box_job(6)).json["id"]
            d.wait_job(running, states=("running",))
            dump = os.path.join(tmp, "ductile.dump")
            r = d.cli("admin", "backup", dump)
            assert r.returncode == 0, r.stderr
            assert "schema version 9" in r.stderr, r.stderr
            assert stat.S_IMODE(os.stat(dump).st_mode) == 0o600
            listing = subprocess.run(["pg_restore", "--list", dump], capture_output=True, text=True)
            assert listing.returncode == 0 and "TABLE DATA public jobs" in listing.stdout, listing
            size = os.path.getsize(dump)
            r = d.cli("admin", "backup", dump)
            assert r.returncode == 1 and "exists already" in r.stderr, r.stderr
            assert os.path.getsize(dump) == size
            rec = json.loads(d.cli("admin", "audit", "--action", "store.backup").stdout)
            assert len(rec) == 1 and rec[0]["details"]["bytes"] == size, rec
            assert rec[0]["details"]["schema_version"] == 9, rec
            assert [f for f in os.listdir(tmp) if f.startswith("ductile.dump.")] == [], os.listdir(tmp)
            token = d.token
            data_dir = d.data_dir
            d.keep = True  # its files are copied below
        # The files after the database (docs/operations.md), here once the daemon has stopped
        shutil.copytree(data_dir, restored_dir, ignore=shutil.ignore_patterns("tmp"))
        dtserver.remove_data_dir(data_dir)

        url = dtserver.pg_database(restored_dir)
        r = subprocess.run(["pg_restore", "--no-owner", "--dbname", url, dump], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        with started(binary, data_dir=restored_dir) as d2:
            assert d2.token == token
            assert d2.request("GET", f"/v1/jobs/{done}").json["state"] == "succeeded"
            assert d2.request("GET", f"/v1/jobs/{done}/results").json["completed"]
            assert d2.request("GET", f"/v1/meshes/{mesh}").status == 200
            j = d2.wait_job(running, timeout=240)
            assert j["state"] == "succeeded" and j["attempts"] == 2, j
        print(f"pg_dump backup of {size} bytes while a job ran; restored with pg_restore: the finished job, "
              "the mesh and the token served, the running job resumed and completed")
    finally:
        dtserver.drop_database(restored_dir)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    run(main)
