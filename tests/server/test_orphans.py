"""Defect 10: a crash between a file and its row. A mesh is renamed into meshes/ before its row is
inserted, and a job's directory is written before its row: a crash in between left a file no row
references, which nothing ever removed. Start-up now removes every entry of meshes/ that no mesh
row names and every entry of jobs/ that is not the directory of a job row, and logs each.

The test stops a daemon that holds a mesh (JSON), a Gmsh mesh and a finished job with results,
then plants what such crashes leave: a mesh file with an id no row has, a
half-written mesh (`.tmp`), a second file beside a referenced mesh under another extension, a
job directory with a document and results but no row, and a stray file in jobs/. After a
restart on the same data directory the planted entries are gone, each named in the log, and
everything the rows reference is still there and served (the meshes, the job's document,
results and VTU; a new job on the mesh runs). A second restart removes nothing."""
import os
import tempfile
import time

import dtserver
from dtserver import Daemon, remove_data_dir, run, started, unit_cube

MSH = """$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
3 1 "all"
$EndPhysicalNames
$Nodes
4
1 0 0 0
2 1 0 0
3 0 1 0
4 0 0 1
$EndNodes
$Elements
1
1 4 2 1 1 1 2 3 4
$EndElements
"""


def plant(path, text="{}"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main(binary):
    data = tempfile.mkdtemp(prefix="ductiled-orphans-")
    try:
        d1 = Daemon(binary, data_dir=data).start()
        try:
            mesh = d1.request("POST", "/v1/meshes?name=cube", unit_cube()["mesh"]).json
            msh = d1.request("POST", "/v1/meshes?name=tet.msh", MSH.encode(),
                             headers={"Content-Type": "application/x-gmsh-msh"})
            assert msh.status == 201, msh
            msh = msh.json
            job = unit_cube()
            del job["mesh"]
            job["mesh_id"] = mesh["id"]
            done = d1.request("POST", "/v1/jobs", job).json["id"]
            assert d1.wait_job(done)["state"] == "succeeded"
        finally:
            assert d1.stop() == 0
        kept = [f"meshes/{mesh['id']}.json", f"meshes/{msh['id']}.msh", f"jobs/{done}/job.json",
                f"jobs/{done}/attempt-1/out/summary.json", f"jobs/{done}/attempt-1/out/increment_0003.vtu"]
        for k in kept:
            assert os.path.exists(os.path.join(data, k)), k
        # What the crashes leave: a mesh whose insert never ran, a mesh written half (its .tmp),
        # a file beside a referenced mesh that its row does not name, a job directory without
        # its row (a refused or deleted job), something else in jobs/.
        orphans = ["meshes/m-0123456789abcdef.json", f"meshes/{mesh['id']}.json.tmp",
                   f"meshes/{mesh['id']}.msh", "jobs/j-0123456789abcdef/job.json",
                   "jobs/j-0123456789abcdef/out/increment_0001.vtu", "jobs/stray.txt"]
        for o in orphans:
            plant(os.path.join(data, o))
        if dtserver.STORE == "postgresql":
            # A shared store's daemons share the data directory: start-up leaves files younger than
            # an hour, which another daemon may be writing. These are older.
            old = time.time() - 7200
            for o in orphans + ["jobs/j-0123456789abcdef/out", "jobs/j-0123456789abcdef"]:
                os.utime(os.path.join(data, o), (old, old))

        with started(binary, data_dir=data) as d2:
            log = d2.read_log()
            for o in orphans:
                assert not os.path.exists(os.path.join(data, o)), o
            assert not os.path.exists(os.path.join(data, "jobs", "j-0123456789abcdef"))
            for k in kept:
                assert os.path.exists(os.path.join(data, k)), k
            for logged in ("meshes/m-0123456789abcdef.json", f"meshes/{mesh['id']}.json.tmp",
                           f"meshes/{mesh['id']}.msh", "jobs/j-0123456789abcdef", "jobs/stray.txt"):
                assert f"path={logged}" in log, (logged, log[-3000:])
            summary = "start-up: removed 5 file(s) or directories that no database row references"
            assert summary in log, log[-3000:]
            print("\n".join(line for line in log.splitlines() if "start-up: removed" in line))
            # What the rows reference is still there and served.
            assert d2.request("GET", f"/v1/meshes/{mesh['id']}").status == 200
            assert d2.request("GET", f"/v1/meshes/{msh['id']}").status == 200
            assert d2.request("GET", f"/v1/jobs/{done}/results").status == 200
            assert d2.request("GET", f"/v1/jobs/{done}/results/increments/3/vtu").status == 200
            r = d2.request("POST", "/v1/jobs", job)
            assert r.status == 201, r
            assert d2.wait_job(r.json["id"])["state"] == "succeeded"
            removals = d2.read_log().count("start-up: removed")

        # A start with nothing to remove removes nothing and says nothing about it.
        with started(binary, data_dir=data) as d3:
            assert d3.read_log().count("start-up: removed") == removals
            assert d3.request("GET", f"/v1/jobs/{r.json['id']}/results").status == 200
    finally:
        remove_data_dir(data)


if __name__ == "__main__":
    run(main)
