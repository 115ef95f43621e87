"""Per-user storage (max_user_stored_bytes, 150000 here): what a user stores is its meshes'
files and its ended jobs' directories. alice submits small jobs until one is refused: 413
storage_quota (a job is admitted while what she stores and its document fit; its results count
once it has ended, so the store may pass the cap by one job's results), whose details say what
she stores (the sum of her files on disk, which the test
adds up itself), what the request adds and the cap; bob, who stores nothing, is served; once
alice deletes a finished job she may submit again. A mesh upload beyond the cap is refused the
same way."""
import os

from dtserver import run, started, unit_cube

QUOTA = 150000


def add_user(d, name):
    assert d.cli("admin", "user", "add", name).returncode == 0
    r = d.cli("token", "create", "--user", name, "--name", name)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def tree_bytes(path):
    n = 0
    for root, _, files in os.walk(path):
        n += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return n


def stored(d, jobs, meshes):
    """What the daemon should count: the meshes' files and the ended jobs' directories."""
    n = sum(tree_bytes(os.path.join(d.data_dir, "jobs", j)) for j in jobs)
    mdir = os.path.join(d.data_dir, "meshes")
    return n + sum(os.path.getsize(os.path.join(mdir, f)) for f in os.listdir(mdir)
                   if any(f.startswith(m) for m in meshes))


def main(binary):
    with started(binary, {"DUCTILED_MAX_USER_STORED_BYTES": str(QUOTA)}) as d:
        alice, bob = add_user(d, "alice"), add_user(d, "bob")
        mid = d.request("POST", "/v1/meshes", unit_cube()["mesh"], token=alice).json["id"]
        job = unit_cube()
        del job["mesh"]
        job["mesh_id"] = mid
        jobs, refused = [], None
        for _ in range(60):
            r = d.request("POST", "/v1/jobs", job, token=alice)
            if r.status == 413:
                refused = r
                break
            assert r.status == 201, r
            jobs.append(r.json["id"])
            d.wait_job(jobs[-1])
        assert refused is not None, f"{len(jobs)} jobs and no refusal"
        err = refused.json["error"]
        assert err["code"] == "storage_quota", err
        det = err["details"]
        assert det["max_user_stored_bytes"] == QUOTA, det
        # the results of the last job accepted came after its admission: stored may pass the cap
        assert det["stored_bytes"] + det["request_bytes"] > QUOTA, det
        on_disk = stored(d, jobs, [mid])
        assert det["stored_bytes"] == on_disk, (det, on_disk)
        print(f"alice: {len(jobs)} jobs stored, then 413: {err['message']}")
        # a mesh upload counts the same
        r = d.request("POST", "/v1/meshes", unit_cube()["mesh"], token=alice)
        assert r.status == 413 and r.json["error"]["code"] == "storage_quota", r
        # bob stores nothing
        mid_b = d.request("POST", "/v1/meshes", unit_cube()["mesh"], token=bob).json["id"]
        job_b = dict(job, mesh_id=mid_b)
        r = d.request("POST", "/v1/jobs", job_b, token=bob)
        assert r.status == 201, r
        d.wait_job(r.json["id"])
        # deleting a finished job frees its bytes
        assert d.request("DELETE", f"/v1/jobs/{jobs[0]}", token=alice).status == 204
        r = d.request("POST", "/v1/jobs", job, token=alice)
        assert r.status == 201, r
        d.wait_job(r.json["id"])


if __name__ == "__main__":
    run(main)
