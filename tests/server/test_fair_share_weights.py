"""Fair-share weights (users.share) on one worker (CPU backend). A job of the admin holds the
worker while alice and bob each queue 8 small jobs (alice first). Then, with bob's share set to 3
by `ductiled admin user share bob 3`, the worker's choices compare each user's worker time
divided by its share: A1 (no use yet, the older job), then B1, B2 and B3 (bob's time over 3 stays
below alice's), then the two alternate by that rule: six of the first eight jobs are bob's. With
equal shares (a second daemon) the two take turns: two of the first four, and about four of the
first eight, are bob's. The start orders are printed.

The command refuses what is not a weight (0, negative, above 1000, NaN, infinity, text) with a
message that says so, and an unknown user; a share that is set is in `admin user list` and in
the audit log (user.share, with the share before)."""
import json
import time

import dtserver
from dtserver import box_job, run, started, unit_cube


def add_user(d, name):
    r = d.cli("admin", "user", "add", name)
    assert r.returncode == 0, r.stderr
    r = d.cli("token", "create", "--user", name, "--name", f"{name}-laptop")
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def submit(d, token, mesh_id, title):
    job = unit_cube()
    del job["mesh"]
    job["mesh_id"] = mesh_id
    job["title"] = title
    r = d.request("POST", "/v1/jobs", job, token=token)
    assert r.status == 201, r
    return r.json["id"]


def wait_for(what, cond, timeout=240):
    t0 = time.time()
    while not cond():
        assert time.time() - t0 < timeout, f"timed out waiting for {what}"
        time.sleep(0.05)


def start_order(d, bob_share):
    """The titles of alice's and bob's 16 jobs in the order the worker started them."""
    alice, bob = add_user(d, "alice"), add_user(d, "bob")
    if bob_share is not None:
        r = d.cli("admin", "user", "share", "bob", str(bob_share))
        assert r.returncode == 0, r.stderr
    mesh = unit_cube()["mesh"]
    amesh = d.request("POST", "/v1/meshes", mesh, token=alice).json["id"]
    bmesh = d.request("POST", "/v1/meshes", mesh, token=bob).json["id"]
    r = d.request("POST", "/v1/jobs", box_job(9))
    assert r.status == 201, r
    blocker = r.json["id"]
    wait_for("the admin's job to run", lambda: d.request("GET", f"/v1/jobs/{blocker}").json["state"] == "running")
    for i in range(8):
        submit(d, alice, amesh, f"A{i + 1}")
    for i in range(8):
        submit(d, bob, bmesh, f"B{i + 1}")
    assert d.request("GET", f"/v1/jobs/{blocker}").json["state"] == "running", \
        "the admin's job ended before the queue was full: the order would test nothing"

    def all_done():
        items = d.request("GET", "/v1/jobs?limit=100").json["items"]
        return len(items) == 17 and all(j["state"] == "succeeded" for j in items)

    wait_for("every job to succeed", all_done, timeout=600)
    jobs = [j for j in d.request("GET", "/v1/jobs?limit=100").json["items"] if j["id"] != blocker]
    return [j["title"] for j in sorted(jobs, key=lambda j: j["started_at"])]


def check_command(d):
    add_user(d, "carol")
    for bad in ("0", "-1", "1000.5", "nan", "inf", "abc", "", "2x"):
        r = d.cli("admin", "user", "share", "carol", bad)
        assert r.returncode == 1, (bad, r.returncode, r.stderr)
        assert "share: expected" in r.stderr and "at most 1000" in r.stderr, (bad, r.stderr)
    # `ductiled migrate` on a store that is up to date: the store and its schema version.
    r = d.cli("migrate")
    assert r.returncode == 0 and r.stdout == f"{dtserver.STORE} schema version 9\n", (r.stdout, r.stderr)
    r = d.cli("admin", "user", "share", "nobody", "2")
    assert r.returncode == 1 and "no user named nobody" in r.stderr, r.stderr
    r = d.cli("admin", "user", "share", "carol", "2.5")
    assert r.returncode == 0 and "share 2.5" in r.stderr, r.stderr
    users = {u["name"]: u for u in json.loads(d.cli("admin", "user", "list").stdout)}
    assert users["carol"]["share"] == 2.5 and users["admin"]["share"] == 1.0, users
    rec = json.loads(d.cli("admin", "audit", "--action", "user.share").stdout)
    assert len(rec) == 1 and rec[0]["target"] == "carol", rec
    assert rec[0]["details"] == {"share": 2.5, "previous": 1.0} and rec[0]["via"] == "cli", rec
    # The API shows the record too (GET /v1/audit validates it against the spec).
    items = d.request("GET", "/v1/audit?action=user.share").json["items"]
    assert [i["target"] for i in items] == ["carol"], items


def main(binary):
    env = {"DUCTILED_TEST_ITERATION_DELAY_MS": "40"}
    with started(binary, env) as d:
        check_command(d)
    with started(binary, env) as d:
        weighted = start_order(d, 3)
    with started(binary, env) as d:
        equal = start_order(d, None)
    print("start order, bob's share 3:", " ".join(weighted))
    print("start order, equal shares: ", " ".join(equal))
    bob8_w = sum(t.startswith("B") for t in weighted[:8])
    bob8_e = sum(t.startswith("B") for t in equal[:8])
    print(f"bob's jobs among the first eight: {bob8_w} (share 3), {bob8_e} (equal shares)")
    assert weighted[:4] == ["A1", "B1", "B2", "B3"], weighted
    assert 5 <= bob8_w <= 7, weighted
    assert sum(t.startswith("B") for t in equal[:4]) == 2, equal
    assert 3 <= bob8_e <= 5 and bob8_e < bob8_w, (equal, weighted)
    # Each user's own jobs keep their submission order.
    for order in (weighted, equal):
        for u in "AB":
            assert [t for t in order if t[0] == u] == [f"{u}{i + 1}" for i in range(8)], order


if __name__ == "__main__":
    run(main)
