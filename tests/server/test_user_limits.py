"""Per-user limits, each answered in the API's JSON errors (the responses are checked against the
spec):

- max_active_jobs_per_user = 2: alice's third job while two are queued or running is 429
  too_many_jobs (details: the limit and her count; the message says what to do); bob's first is
  accepted (the count is per user); once alice cancels one she may submit again.
- max_job_increments = 6: a job whose fixed steps take 7 increments is 422 too_many_increments
  (details: path "steps", increments 7, the limit) and leaves no directory behind; an automatic
  step whose increments are too small to finish in 6 fails at run time with code
  too_many_increments after exactly 6 converged increments, which are kept.
- max_job_output_bytes: a job whose results (about 50 kB an increment) pass the cap fails with
  code output_too_large (reason max_job_output_bytes) after a few increments instead of writing
  its 20, its converged increments listed and on disk, and the disk use stays within a few
  increments of the cap. The worker then runs the next job.

Jobs are slowed by test_iteration_delay_ms so that they are still queued or running when the
test counts them; every wait is on a state, with generous timeouts."""
import os
import time

from dtserver import attempt_dir, box_job, run, started, unit_cube


def add_user(d, name):
    r = d.cli("admin", "user", "add", name)
    assert r.returncode == 0, r.stderr
    r = d.cli("token", "create", "--user", name, "--name", f"{name}-laptop")
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


def active_jobs(d):
    j = unit_cube()
    r1 = d.request("POST", "/v1/jobs", j, token=d.alice)
    r2 = d.request("POST", "/v1/jobs", j, token=d.alice)
    assert r1.status == 201 and r2.status == 201, (r1, r2)
    r = d.request("POST", "/v1/jobs", j, token=d.alice)
    assert r.status == 429, r
    err = r.json["error"]
    assert err["code"] == "too_many_jobs", err
    assert err["details"] == {"max_active_jobs_per_user": 2, "active": 2}, err
    assert "2 jobs queued or running" in err["message"] and "max_active_jobs_per_user" in err["message"], err
    # nothing of the refused job is left
    assert len(d.request("GET", "/v1/jobs?owner=alice").json["items"]) == 2
    assert len(os.listdir(os.path.join(d.data_dir, "jobs"))) == 2
    # per user: bob is not held back by alice's jobs
    rb = d.request("POST", "/v1/jobs", j, token=d.bob)
    assert rb.status == 201, rb
    # a cancelled job no longer counts
    r = d.request("POST", f"/v1/jobs/{r2.json['id']}/cancel", token=d.alice)
    assert r.status == 202, r
    d.wait_job(r2.json["id"])
    r3 = d.request("POST", "/v1/jobs", j, token=d.alice)
    assert r3.status == 201, r3
    return [r1.json["id"], r3.json["id"], rb.json["id"]]


def increments(d):
    job = unit_cube()
    job["steps"][0]["increments"] = 3
    job["steps"][1]["increments"] = 3
    before = set(os.listdir(os.path.join(d.data_dir, "jobs")))
    r = d.request("POST", "/v1/jobs", job)
    assert r.status == 422, r
    err = r.json["error"]
    assert err["code"] == "too_many_increments", err
    assert err["details"] == {"path": "steps", "increments": 7, "max_job_increments": 6}, err
    assert "at least 7 increments" in err["message"] and "max_job_increments = 6" in err["message"], err
    assert set(os.listdir(os.path.join(d.data_dir, "jobs"))) == before
    # Six is allowed.
    job["steps"][1]["increments"] = 2
    r = d.request("POST", "/v1/jobs", job)
    assert r.status == 201, r
    fixed = r.json["id"]
    # An automatic step counts as 1/max at submission; its small increments need more at run time.
    job = unit_cube()
    job["steps"] = [job["steps"][2]]
    job["steps"][0]["increments"] = {"type": "automatic", "initial": 0.02, "min": 0.001, "max": 1.0}
    r = d.request("POST", "/v1/jobs", job)
    assert r.status == 201, r
    return fixed, r.json["id"]


def main(binary):
    env = {"DUCTILED_MAX_ACTIVE_JOBS_PER_USER": "2", "DUCTILED_MAX_JOB_INCREMENTS": "6",
           "DUCTILED_TEST_ITERATION_DELAY_MS": "100"}
    with started(binary, env) as d:
        d.alice, d.bob = add_user(d, "alice"), add_user(d, "bob")
        ids = active_jobs(d)
        fixed, auto = increments(d)
        for jid in ids + [fixed]:
            j = d.wait_job(jid, timeout=240)
            assert j["state"] == "succeeded", j
        j = d.wait_job(auto, timeout=240)
        assert j["state"] == "failed", j
        assert j["error"]["code"] == "too_many_increments", j
        assert j["error"]["reason"] == "max_job_increments", j
        assert "converged 6 increments" in j["error"]["message"], j
        assert j["progress"]["increments_completed"] == 6, j
        inc = d.request("GET", f"/v1/jobs/{auto}/results/increments").json["items"]
        assert [i["n"] for i in inc] == list(range(1, 7)), inc
        print("run-time increments limit:", j["error"]["message"])

    cap = 150000
    env = {"DUCTILED_MAX_JOB_OUTPUT_BYTES": str(cap), "DUCTILED_TEST_ITERATION_DELAY_MS": "400"}
    with started(binary, env) as d:
        big = d.request("POST", "/v1/jobs", box_job(4)).json["id"]
        after = d.request("POST", "/v1/jobs", unit_cube()).json["id"]
        j = d.wait_job(big, timeout=240)
        out = os.path.join(attempt_dir(d.data_dir, big, 1), "out")
        used = dir_bytes(out)
        n = j["progress"]["increments_completed"]
        print(f"output cap {cap} bytes: stopped after {n} increments, {used} bytes on disk:",
              j["error"] and j["error"]["message"])
        assert j["state"] == "failed", j
        assert j["error"]["code"] == "output_too_large", j
        assert j["error"]["reason"] == "max_job_output_bytes", j
        assert f"max_job_output_bytes = {cap}" in j["error"]["message"], j
        # about 50 kB an increment: past the cap after 3, stopped within a few more (at most a
        # second passes between two checks), far from the 20 the job asks for
        assert 3 <= n <= 12, n
        assert cap < used < cap + 8 * 50000, used
        inc = d.request("GET", f"/v1/jobs/{big}/results/increments").json["items"]
        assert [i["n"] for i in inc] == list(range(1, n + 1)), inc
        assert not os.path.exists(os.path.join(attempt_dir(d.data_dir, big, 1), "checkpoint.ckpt"))
        # the worker goes on with the next job (3 increments, under the cap)
        j = d.wait_job(after, timeout=240)
        assert j["state"] == "succeeded", j


if __name__ == "__main__":
    t0 = time.time()
    run(main)
    print(f"{time.time() - t0:.1f} s")
