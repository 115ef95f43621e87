"""Fair sharing on one worker (CPU backend): alice queues 20 small jobs, then, once three of them
have finished, bob queues 2. The next job the worker takes is bob's first (bob has used no
worker time in the window, alice some), and bob's second starts at most one of alice's jobs
later (it may reach the queue after bob's first has ended), both long before alice's backlog is
done; alice's jobs keep their submission order among themselves. The recorded start order
(started_at, with each owner's usage when the worker chose the job, from the daemon's log) is
printed. The store keeps each job's worker time (busy_seconds), which is what the window sums. With
fair_share_window = 0 the order is submission order: bob's job waits for alice's.

A job takes a few hundred milliseconds (test_iteration_delay_ms), so the order does not depend
on the speed of the machine: the choices are decided by the usage, not by races."""
import os
import re

import time

from dtserver import run, started, unit_cube


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
    return r.json


def wait_for(what, cond, timeout=240):
    t0 = time.time()
    while not cond():
        assert time.time() - t0 < timeout, f"timed out waiting for {what}"
        time.sleep(0.05)


def main(binary):
    with started(binary, {"DUCTILED_TEST_ITERATION_DELAY_MS": "40"}) as d:
        alice, bob = add_user(d, "alice"), add_user(d, "bob")
        mesh = unit_cube()["mesh"]
        amesh = d.request("POST", "/v1/meshes", mesh, token=alice).json["id"]
        bmesh = d.request("POST", "/v1/meshes", mesh, token=bob).json["id"]
        a_ids = [submit(d, alice, amesh, f"A{i + 1}")["id"] for i in range(20)]

        def alice_done():
            jobs = d.request("GET", "/v1/jobs?owner=alice&state=succeeded&limit=100").json["items"]
            return len(jobs) >= 3

        wait_for("three of alice's jobs", alice_done)
        b_jobs = [submit(d, bob, bmesh, f"B{i + 1}") for i in range(2)]
        b_ids = [j["id"] for j in b_jobs]
        bob_submitted = b_jobs[0]["created_at"]

        def all_done():
            items = d.request("GET", "/v1/jobs?limit=100").json["items"]
            return len(items) == 22 and all(j["state"] == "succeeded" for j in items)

        wait_for("every job to succeed", all_done, timeout=600)
        jobs = d.request("GET", "/v1/jobs?limit=100").json["items"]
        order = sorted(jobs, key=lambda j: j["started_at"])
        usage = dict(re.findall(r"msg=\"worker 0: running job \(attempt 1\)\" job=(j-[0-9a-f]{16}) "
                                r"owner_id=\d+ owner_usage_s=([0-9.]+)", d.read_log()))
        print("start order (title owner started_at owner's usage in the window when chosen):")
        for j in order:
            print(f"  {j['title']:4} {j['owner']:6} {j['started_at']} {usage.get(j['id'], '?')} s")
        print("start order:", " ".join(j["title"] for j in order))

        titles = [j["title"] for j in order]
        after = [j["title"] for j in order if j["started_at"] > bob_submitted]
        # The first job chosen after bob's submission is bob's first.
        assert after[0] == "B1", (after, titles)
        # Bob's second: next, or after the one job of alice's that may have been chosen while
        # it was not queued yet.
        assert after[1] == "B2" or (after[1].startswith("A") and after[2] == "B2"), (after, titles)
        assert titles.index("B2") < titles.index("A20") and titles.index("B2") < len(titles) - 10, titles
        # Alice's jobs among themselves: submission order.
        assert [t for t in titles if t.startswith("A")] == [f"A{i + 1}" for i in range(20)], titles
        # Bob's first was chosen with no usage, alice's jobs after it with some.
        assert float(usage[b_ids[0]]) == 0.0, usage
        assert all(float(usage[j["id"]]) > 0 for j in order if j["title"] in ("A4", "A5", "A20")), usage

        # Each job's worker time is recorded: the window's sum is a query.
        rows = [(r[0], int(r[1]), float(r[2]), float(r[3])) for r in d.sql(
            "SELECT u.name, COUNT(*), SUM(j.busy_seconds), MIN(j.busy_seconds) FROM jobs j "
            "JOIN users u ON u.id = j.owner_id GROUP BY u.name ORDER BY u.name")]
        print("busy seconds by user (jobs, sum, least):", rows)
        assert [(r[0], r[1]) for r in rows] == [("alice", 20), ("bob", 2)], rows
        assert all(r[3] > 0 for r in rows), rows

    # fair_share_window = 0: submission order, whoever submitted.
    with started(binary, {"DUCTILED_TEST_ITERATION_DELAY_MS": "40", "DUCTILED_FAIR_SHARE_WINDOW": "0"}) as d:
        alice, bob = add_user(d, "alice"), add_user(d, "bob")
        mesh = unit_cube()["mesh"]
        amesh = d.request("POST", "/v1/meshes", mesh, token=alice).json["id"]
        bmesh = d.request("POST", "/v1/meshes", mesh, token=bob).json["id"]
        for i in range(5):
            submit(d, alice, amesh, f"A{i + 1}")
        wait_for("alice's first job", lambda: len(d.request(
            "GET", "/v1/jobs?owner=alice&state=succeeded&limit=100").json["items"]) >= 1)
        submit(d, bob, bmesh, "B1")
        wait_for("every job to succeed", lambda: all(
            j["state"] == "succeeded" for j in d.request("GET", "/v1/jobs?limit=100").json["items"]))
        titles = [j["title"] for j in sorted(d.request("GET", "/v1/jobs?limit=100").json["items"],
                                              key=lambda j: j["started_at"])]
        print("start order without fair sharing:", " ".join(titles))
        assert titles == ["A1", "A2", "A3", "A4", "A5", "B1"], titles


if __name__ == "__main__":
    run(main)
