"""ductiled on a GPU server (label gpu): the daemon with its embedded defaults (backend auto,
gpus auto) on a machine with an NVIDIA GPU. Skipped (exit 77) where the driver shows no GPU;
where it shows one, the CUDA backend must be the one chosen.

- /v1/health and /metrics name the CUDA backend and every GPU (kind gpu, the driver's name,
  total and free memory), one worker per GPU, each naming its device.
- A plastic job with a non-uniform stress field (box_job(8) with its bottom face clamped, 20
  increments in two steps) runs on the GPU (job backend "cuda"). Against the same job on a CPU
  daemon (the reference): the same Newton iterations in every increment, displacements to 1e-9
  and stresses to 1e-8 relative to their largest magnitude (the CUDA backend issue's
  tolerances).
- A job beyond its limit load (perfectly plastic, clamped, pulled at twice the yield stress)
  fails on the GPU as on the CPU daemon: code not_converged, a message that names the step and
  the limit load, and the same converged increments and cutbacks before it; the daemon then
  runs the next job, and the GPU's free memory is back where it was (nothing leaked by the
  failed job).
- On a machine with several GPUs: 2 jobs per GPU run on every worker, hence every GPU, with
  bit-identical results.
- Several users on one GPU (gpus = "0,0": two workers share GPU 0): three jobs, two at a time,
  all succeed with bit-identical results (the CUDA backend is deterministic and its jobs share
  nothing).
- A job the GPU cannot hold (DUCTILE_GPU_MEMORY_LIMIT=1M for the daemon, the backend's budget
  for its jobs on a device) fails with code does_not_fit and a message that gives the estimate
  and the limit; the daemon stays up and serves the next request.
- Two workers on one GPU with room for one job (the limit between one job's need and two
  jobs'): the second job waits for the first (an info event "waiting for GPU 0") instead of
  failing, then runs, with the same results.
- A running GPU job cancelled between two Newton iterations ends cancelled, and the GPU's
  free memory is back where it was.
- kill -9 in the middle of a GPU job: the restarted daemon resumes it from its checkpoint (the
  CUDA backend's saved state) and the result equals, bit for bit, the uninterrupted GPU job's
  (the checks of test_recovery.py, which include the top displacement u_z = 5.272727e-3 of
  box_job's uniaxial analytical solution, to 1e-8).
- A device fault in the middle of a GPU job (the CUDA backend's test knob
  DUCTILE_CUDA_FAULT_FILE: an illegal memory access, the kind of error after which CUDA refuses
  the process any further work on that GPU): the job gets a job.gpu_fault event naming the
  error, the daemon restarts in place (same pid, listening again), resumes the job from its
  checkpoint and finishes it with results bit-identical to the uninterrupted job's. A job that
  faults on each of its attempts fails after the third with code gpu_fault, and the daemon,
  restarted again, runs the next job on the GPU. With several GPUs, a fault on one while another
  runs a job: one restart; CUDA refuses the whole process any further work after such a fault
  (measured on a two-H200 machine: the job on the other GPU failed the same way), so the
  other job gets job.gpu_fault too, or job.interrupted ("restarting") if the drain stops it
  first; both resume from their checkpoints with bit-identical results."""
import json
import os
import re
import signal
import subprocess
import sys
import time
import tempfile

from dtserver import Daemon, attempt_dir, box_job, remove_data_dir, run, started
import test_recovery

# Free device memory may differ by a page or so between two reads; a leaked job of box_job(16)
# (about 27 MB of device arrays) would not.
LEAK_SLACK = 4 << 20
GPU_ENV = {"DUCTILED_GPUS": "auto", "DUCTILED_BACKEND": "auto"}


def gpu_count():
    """GPUs the driver shows (nvidia-smi -L prints a line "GPU i: ..." for each); 0 without a driver."""
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return sum(line.startswith("GPU ") for line in out.stdout.splitlines()) if out.returncode == 0 else 0


def newton_per_increment(d, jid):
    ev, done = d.poll_events(jid)
    assert done, jid
    return [e["data"]["newton_iterations"] for e in ev if e["type"] == "increment.converged"]


def last_fields(d, jid):
    n = d.request("GET", f"/v1/jobs/{jid}/results").json["n_increments"]
    return d.request("GET", f"/v1/jobs/{jid}/results/increments/{n}").json


def max_rel_diff(a, b):
    """max |a - b| / max |b| over nested lists of numbers."""
    fa = [x for row in a for x in (row if isinstance(row, list) else [row])]
    fb = [x for row in b for x in (row if isinstance(row, list) else [row])]
    assert len(fa) == len(fb) and fb, (len(fa), len(fb))
    scale = max(abs(x) for x in fb)
    return max(abs(x - y) for x, y in zip(fa, fb)) / scale


def check_health(d, n_gpus):
    h = d.request("GET", "/v1/health").json
    assert h["backend_selected"] == "cuda", f"a GPU is present but the daemon chose {h['backend_selected']}: {h}"
    assert len(h["gpus"]) == n_gpus, h
    assert [(w["index"], w["device"]) for w in h["workers"]] == [(i, i) for i in range(n_gpus)], h["workers"]
    text = d.request("GET", "/metrics", token=None).body.decode()
    for i, g in enumerate(h["gpus"]):
        assert g["kind"] == "gpu" and "NVIDIA" in g["name"] and g["index"] == i, g
        assert g["memory_total"] > 1 << 30 and 0 < g["memory_free"] <= g["memory_total"], g
        assert f'ductile_device_memory_bytes{{device="{i}",kind="gpu",name="{g["name"]}"' in text, text
        print(f"health: GPU {i}: {g['name']}, {g['memory_total'] / 2**30:.1f} GiB, "
              f"{g['memory_free'] / 2**30:.1f} GiB free")


def clamped(job):
    """The job with its bottom face fixed in x, y and z: plasticity spreads from the clamped
    edges, so increments need Newton iterations (the uniaxial job converges on its predictor)."""
    job = json.loads(json.dumps(job))
    for s in job["steps"]:
        s["boundary"] = [{"node_set": "z0", "fixed": ["x", "y", "z"]}]
    job["title"] += ", bottom clamped"
    return job


def beyond_limit_load(job):
    """Clamped, perfectly plastic, pulled at twice the yield stress: no increment past the
    limit load (about half the load) converges."""
    job = clamped(job)
    job["materials"][0]["plastic"] = {"yield_stress": 450.0, "hardening": {"type": "linear", "modulus": 0.0}}
    job["steps"] = job["steps"][:1]
    job["steps"][0].update(increments={"type": "automatic", "initial": 0.25, "min": 1e-3, "max": 0.25,
                                       "max_cutbacks": 3},
                           loads=[{"type": "traction", "surface": "top", "value": [0, 0, 900]}])
    job["title"] += ", beyond the limit load"
    return job


def failing_run(d, job):
    """Submit a job that must fail; its error and its (event, load factor) sequence."""
    jid = d.request("POST", "/v1/jobs", job).json["id"]
    j = d.wait_job(jid, timeout=240)
    assert j["state"] == "failed" and j["error"]["code"] == "not_converged", j
    msg = j["error"]["message"]
    assert msg.startswith("no convergence in step 1") and "limit load" in msg, msg
    ev, _ = d.poll_events(jid)
    seq = [(e["type"], e["data"]["load_factor"]) for e in ev
           if e["type"] in ("increment.converged", "increment.cutback")]
    assert ("increment.converged", 0.25) in seq and any(t == "increment.cutback" for t, _ in seq), seq
    return j["error"], seq


def gpu_free(d):
    time.sleep(1.1)  # the daemon's device query is cached for a second
    return sum(g["memory_free"] for g in d.request("GET", "/v1/health").json["gpus"])


def same_on_all_workers(d, job, n_jobs, n_workers):
    """n_jobs copies of the job, submitted at once: all succeed on the GPU, every worker runs
    one, and the results are the same bits."""
    ids = [d.request("POST", "/v1/jobs", job).json["id"] for _ in range(n_jobs)]
    workers = set()
    for jid in ids:
        r = d.wait_job(jid, timeout=240)
        assert r["state"] == "succeeded" and r["backend"] == "cuda", r
        ev, _ = d.poll_events(jid)
        workers |= {e["data"]["worker"] for e in ev if e["type"] == "job.started"}
    assert workers == set(range(n_workers)), workers
    first = last_fields(d, ids[0])
    for jid in ids[1:]:
        other = last_fields(d, jid)
        for k in ("U", "RF", "S", "PEEQ"):
            assert other[k] == first[k], (jid, k)


def solve(d, job):
    jid = d.request("POST", "/v1/jobs", job).json["id"]
    j = d.wait_job(jid, timeout=240)
    assert j["state"] == "succeeded", j
    return j


def main(binary):
    n_gpus = gpu_count()
    if n_gpus == 0:
        print("SKIP: nvidia-smi shows no GPU")
        sys.exit(77)
    data = tempfile.mkdtemp(prefix="ductiled-gpu-")
    job = box_job(8)
    try:
        with started(binary, {"DUCTILED_SOLVER_THREADS": "4"}) as cpu:  # DUCTILED_GPUS=cpu: the reference
            ref = solve(cpu, clamped(job))
            assert ref["backend"] == "cpu", ref
            ref_newton = newton_per_increment(cpu, ref["id"])
            ref_f = last_fields(cpu, ref["id"])
            assert sum(ref_newton) >= 10, ref_newton
            ref_error, ref_seq = failing_run(cpu, beyond_limit_load(box_job(4)))

        with started(binary, GPU_ENV) as d:
            check_health(d, n_gpus)
            j = solve(d, clamped(job))
            assert j["backend"] == "cuda", j
            assert newton_per_increment(d, j["id"]) == ref_newton, (newton_per_increment(d, j["id"]), ref_newton)
            f = last_fields(d, j["id"])
            assert f["node_ids"] == ref_f["node_ids"]
            du, ds = max_rel_diff(f["U"], ref_f["U"]), max_rel_diff(f["S"], ref_f["S"])
            assert du <= 1e-9 and ds <= 1e-8, (du, ds)
            print(f"GPU job against the CPU daemon: U {du:.1e}, S {ds:.1e} (relative), "
                  f"Newton iterations per increment the same ({sum(ref_newton)} in all)")

            if n_gpus > 1:  # before the memory check: every GPU then holds its worker's context
                same_on_all_workers(d, clamped(job), 2 * n_gpus, n_gpus)
                print(f"{n_gpus} GPUs: {2 * n_gpus} jobs on all {n_gpus} workers, bit-identical results")
            error, seq = failing_run(d, beyond_limit_load(box_job(4)))
            assert seq == ref_seq, (seq, ref_seq)
            assert error["reason"] == ref_error["reason"], (error, ref_error)
            # Leaks: a failing job large enough that its device arrays (about 27 MB) would show.
            free0 = gpu_free(d)
            failing_run(d, beyond_limit_load(box_job(16)))
            assert solve(d, clamped(job))["backend"] == "cuda"
            free1 = gpu_free(d)
            assert free1 >= free0 - LEAK_SLACK, (free0, free1)
            print(f"beyond the limit load: failed as on the CPU ({error['reason']}, {len(seq)} increments and "
                  f"cutbacks); GPU free memory {free0 / 2**20:.0f} MiB before, {free1 / 2**20:.0f} MiB after")

        with started(binary, dict(GPU_ENV, DUCTILED_GPUS="0,0")) as d:
            h = d.request("GET", "/v1/health").json
            assert [(w["index"], w["device"]) for w in h["workers"]] == [(0, 0), (1, 0)], h["workers"]
            same_on_all_workers(d, job, 3, 2)
            print("two workers on one GPU: 3 jobs, bit-identical results")

        with started(binary, dict(GPU_ENV, DUCTILE_GPU_MEMORY_LIMIT="1M")) as d:
            jid = d.request("POST", "/v1/jobs", job).json["id"]
            r = d.wait_job(jid, timeout=120)
            assert r["state"] == "failed" and r["error"]["code"] == "does_not_fit", r
            msg = r["error"]["message"]
            assert "estimated" in msg and "DUCTILE_GPU_MEMORY_LIMIT=1M" in msg, msg
            assert d.request("GET", "/v1/health").json["status"] == "ok"
            print(f"too large for the GPU: {msg}")
            need = float(re.search(r"needs an estimated ([0-9.]+) MB", msg).group(1)) * 1e6

        check_wait_for_memory(binary, job, need)

        # kill -9 in the middle of a GPU job, then resume from the checkpoint.
        slow = dict(GPU_ENV, DUCTILED_TEST_ITERATION_DELAY_MS="100")
        d1 = Daemon(binary, slow, data_dir=data).start()
        jid = d1.request("POST", "/v1/jobs", job).json["id"]
        test_recovery.wait_increments(d1, jid, 5)
        d1.proc.send_signal(signal.SIGKILL)
        d1.proc.wait()
        d1.log.close()
        assert os.path.exists(os.path.join(attempt_dir(data, jid, 1), "checkpoint.ckpt"))
        test_recovery.integrity(data)
        with started(binary, slow, data_dir=data) as d2:
            kept, before = test_recovery.check_resumed(d2, jid, "job.recovered")
            assert before >= 5 and before <= kept <= before + 1, (kept, before)
            again = solve(d2, job)
            assert again["backend"] == "cuda", again
            test_recovery.check_same_results(d2, jid, again["id"])
            print(f"kill -9 on the GPU: {kept} increments kept, {test_recovery.TOTAL - kept} computed after")

            free0 = gpu_free(d2)
            sub = d2.request("POST", "/v1/jobs", box_job(16)).json
            jid = sub["id"]
            assert sub["memory_estimate_bytes"] > 4 * LEAK_SLACK, sub  # a leak of it would show
            test_recovery.wait_increments(d2, jid, 3)
            running = gpu_free(d2)  # the check below can see a job: its arrays show while it runs
            assert running < free0 - LEAK_SLACK, (free0, running)
            r = d2.request("POST", f"/v1/jobs/{jid}/cancel")
            assert r.status == 202 and r.json["cancel_requested"] is True, r
            c = d2.wait_job(jid, timeout=120)
            assert c["state"] == "cancelled" and c["error"]["code"] == "cancelled", c
            assert c["progress"]["increments_completed"] < test_recovery.TOTAL, c
            free1 = gpu_free(d2)
            assert free1 >= free0 - LEAK_SLACK, (free0, free1)
            print(f"cancelled on the GPU after {c['progress']['increments_completed']} increments "
                  f"(estimate {sub['memory_estimate_bytes'] / 2**20:.0f} MiB); "
                  f"GPU free memory {free0 / 2**20:.0f} MiB before, {running / 2**20:.0f} MiB while it ran, "
                  f"{free1 / 2**20:.0f} MiB after")

        check_device_fault(binary, slow, data, job, again["id"], n_gpus)
    finally:
        remove_data_dir(data)


def check_wait_for_memory(binary, job, need):
    """Two workers on one GPU with room for one job at a time (DUCTILE_GPU_MEMORY_LIMIT budgets
    the daemon's GPU memory): the second job waits for the first instead of failing."""
    env = dict(GPU_ENV, DUCTILED_GPUS="0,0", DUCTILED_TEST_ITERATION_DELAY_MS="100")
    with started(binary, env) as probe:
        sub = probe.request("POST", "/v1/jobs", job).json
        held = sub["memory_estimate_bytes"]  # about what a running job holds (its arrays)
        probe.wait_job(sub["id"], timeout=240)
    limit = int(need + 0.5 * held)  # one job fits; two do not
    with started(binary, dict(env, DUCTILE_GPU_MEMORY_LIMIT=str(limit))) as d:
        a = d.request("POST", "/v1/jobs", job).json["id"]
        test_recovery.wait_increments(d, a, 1)
        b = d.request("POST", "/v1/jobs", job).json["id"]
        t0 = time.time()
        while True:
            ev, _ = d.poll_events(b)
            waiting = [e["data"]["text"] for e in ev if e["type"] == "info" and "waiting for GPU 0" in e["data"]["text"]]
            if waiting:
                break
            assert d.request("GET", f"/v1/jobs/{b}").json["state"] in ("queued", "running"), ev
            assert time.time() - t0 < 120, ev
            time.sleep(0.05)
        assert d.request("GET", f"/v1/jobs/{a}").json["state"] == "running"
        assert "DUCTILE_GPU_MEMORY_LIMIT" in waiting[0] and "other jobs on GPU 0 hold" in waiting[0], waiting
        ra, rb = d.wait_job(a, timeout=240), d.wait_job(b, timeout=240)
        assert ra["state"] == "succeeded" and rb["state"] == "succeeded" and rb["attempts"] == 1, (ra, rb)
        assert rb["started_at"] < ra["finished_at"], (ra, rb)  # b was claimed while a ran, and waited
        test_recovery.check_same_results(d, a, b)
        print(f"two jobs on one GPU with room for one (limit {limit / 1e6:.1f} MB, need {need / 1e6:.1f} MB): "
              f"the second waited for the first, then ran; same results ({waiting[0][:100]}...)")


def check_device_fault(binary, slow, data, job, reference_id, n_gpus):
    fault = os.path.join(data, "fault-now")
    with started(binary, dict(slow, DUCTILE_CUDA_FAULT_FILE=fault), data_dir=data) as d:
        pid = d.proc.pid
        jid = d.request("POST", "/v1/jobs", job).json["id"]
        test_recovery.wait_increments(d, jid, 5)
        listening = d.listening_count()
        open(fault, "w").close()  # the next commit on the device faults
        d.wait_restarted(listening, timeout=120)
        assert d.proc.pid == pid and not os.path.exists(fault)
        assert "cannot use the device again: restarting the daemon" in d.read_log()
        rs = d.request("GET", "/v1/health").json["restarts"]
        # the job runs on whichever worker claimed it: GPU 0 or, on a host of several, another
        assert rs["count"] == 1 and re.match(r"GPU fault: GPU \d+: an illegal memory access", rs["last_reason"]), rs
        kept, before = test_recovery.check_resumed(d, jid, "job.recovered")
        assert before >= 5 and before <= kept <= before + 1, (kept, before)
        ev, _ = d.poll_events(jid)
        gf = [e["data"] for e in ev if e["type"] == "job.gpu_fault"]
        assert len(gf) == 1 and gf[0]["attempt"] == 1, gf
        assert "illegal memory access" in gf[0]["message"] and "resumes from its checkpoint" in gf[0]["message"], gf
        assert d.request("GET", f"/v1/jobs/{jid}").json["backend"] == "cuda"
        test_recovery.check_same_results(d, jid, reference_id)
        print(f"GPU fault mid-job: restarted in place (pid {pid}), {kept} increments kept, "
              f"{test_recovery.TOTAL - kept} computed after; results bit-identical")

        # A job that faults on every attempt fails on the third, and the daemon carries on.
        jid = d.request("POST", "/v1/jobs", job).json["id"]
        t0 = time.time()
        while True:
            try:
                j = d.request("GET", f"/v1/jobs/{jid}", check=False).json
            except OSError:  # restarting
                time.sleep(0.05)
                continue
            if j and j.get("state") in ("failed", "succeeded", "cancelled"):
                break
            if not os.path.exists(fault):
                open(fault, "w").close()
            assert time.time() - t0 < 300, j
            time.sleep(0.05)
        if os.path.exists(fault):
            os.remove(fault)
        assert j["state"] == "failed" and j["attempts"] == 3, j
        assert j["error"]["code"] == "gpu_fault" and "in each of 3 attempts" in j["error"]["message"], j
        d.wait_back()
        assert d.proc.pid == pid
        assert d.request("GET", "/v1/health").json["restarts"]["count"] == 4  # 1 + one per attempt
        assert solve(d, job)["backend"] == "cuda"
        print(f"a job faulting on every attempt: failed with {j['error']['code']} ({j['error']['message'][:90]}...); "
              f"the next job ran on the GPU")

        if n_gpus > 1:  # one GPU faults while another runs a job: both jobs resume
            jids = [d.request("POST", "/v1/jobs", job).json["id"] for _ in range(2)]
            t0 = time.time()
            while True:
                h = d.request("GET", "/v1/health").json
                running = {w["job_id"]: w["device"] for w in h["workers"] if w["busy"]}
                if all(j in running for j in jids):
                    break
                assert time.time() - t0 < 120, h
                time.sleep(0.05)
            assert len(set(running[j] for j in jids)) == 2, running  # on two GPUs
            for j in jids:
                test_recovery.wait_increments(d, j, 3)
            listening = d.listening_count()
            open(fault, "w").close()  # the next commit, on either GPU, faults
            d.wait_restarted(listening, timeout=120)
            faulted, interrupted = [], []
            for j in jids:
                r = d.wait_job(j, timeout=240)
                assert r["state"] == "succeeded" and r["attempts"] == 2, r
                test_recovery.check_same_results(d, j, reference_id)
                types = [e["type"] for e in d.poll_events(j)[0]]
                (faulted if "job.gpu_fault" in types else interrupted).append(j)
            # CUDA leaves the whole process unable to use any GPU after such a fault, so the job on
            # the other GPU usually fails the same way (job.gpu_fault) before the drain stops it
            # (job.interrupted); either way it resumes.
            assert len(faulted) >= 1, (faulted, interrupted)
            for j in interrupted:
                intr = [e["data"] for e in d.poll_events(j)[0] if e["type"] == "job.interrupted"]
                assert len(intr) == 1 and "restarting" in intr[0]["message"], intr
            assert d.request("GET", "/v1/health").json["restarts"]["count"] == 5  # one restart for both
            print(f"a fault while both GPUs ran a job: one restart; {len(faulted)} job(s) with job.gpu_fault, "
                  f"{len(interrupted)} interrupted; both resumed from their checkpoints, results bit-identical")


if __name__ == "__main__":
    run(main)
