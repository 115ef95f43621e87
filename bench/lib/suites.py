#!/usr/bin/env python3
"""The suites other than `real` (bench/lib/suite_real.py), run by bench/run.sh:

  cubes         Kiran's cubes C1-C5 by ductile-bench (solver/tools/ductile_bench.c), in the seed's
                configuration (block Jacobi, fixed PCG tolerance) and the fast one (two-level,
                adaptive tolerance): per mesh the phases, each against its byte floor, and the
                seed's Table 3.3 row. Sizes: small = C1, medium = C2 and C3, large = C4 and C5.
  mohr_coulomb  ductile-solve on the Mohr-Coulomb jobs of bench/mohr_coulomb/: [VilasBoas2020]'s
                wellbore, the strip footing to collapse (Prandtl), the 3D square footing.
  daemon        ductiled on loopback (tests/server/bench_load.py: N clients polling a job's
                status; tests/server/bench_poll_impact.py: the solver's time with and without
                polling, daemon and clients on separate cores).

    suites.py SUITE --build DIR [--backend cpu|cuda|both] [--sizes ...] [--models ...]
              [--limit S] [--threads N] [--out FILE]

Writes the result JSON (bench/README.md) after every run. Python 3 standard library only.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

CUBE_MESHES = {"small": ["C1"], "medium": ["C2", "C3"], "large": ["C4", "C5"]}
CUBE_CONFIGS = {"seed": ["--precond", "block_jacobi", "--forcing", "fixed"],
                "two_level_adaptive": ["--precond", "two_level", "--forcing", "adaptive"],
                "amg_adaptive": ["--precond", "amg", "--forcing", "adaptive"]}
MC_DIR = os.path.join(common.ROOT, "bench", "mohr_coulomb")
# job: (generator, {size: arguments}, what the run reports from the job's history)
MC_JOBS = {
    "wellbore": ("wellbore_job.py", {"tiny": ["30", "16"], "small": ["240", "128"], "medium": ["480", "256"],
                                     "large": ["960", "512"]},
                 "[VilasBoas2020]'s wellbore, quad4 plane strain, c = 5 MPa, phi = psi = 20 deg"),
    "strip_footing": ("footing_job.py", {"tiny": ["20", "10"], "small": ["80", "40"], "medium": ["160", "80"],
                                         "large": ["320", "160"]},
                      "strip footing to collapse (Tresca, phi = 0), quad4 B-bar; q/c against Prandtl's 5.1416"),
    "footing3d": ("footing3d_job.py", {"tiny": ["8", "4"], "small": ["32", "16"], "medium": ["64", "32"],
                                       "large": ["96", "48"]},
                  "square footing, hex8 B-bar, c = 10, phi = psi = 20 deg"),
}


def sizes_of(text):
    return ["small", "medium", "large"] if text == "all" else text.split(",")


def backends_of(text):
    return {"both": ["cpu", "cuda"]}.get(text, [text])


def cubes(a, h, threads, work, save):
    bench = os.path.join(a.build, "solver", "ductile-bench")
    meshes = [m for s in sizes_of(a.sizes) for m in CUBE_MESHES[s]]
    runs = []
    for b in backends_of(a.backend):
        for cfg, opts in CUBE_CONFIGS.items():
            out = os.path.join(work, "%s_%s.json" % (b, cfg))
            cmd = [bench, "--backend", b, "--meshes", ",".join(meshes), "--json", out] + opts
            if b == "cpu":
                cmd += ["--threads", str(threads)]
            r = common.run_child(cmd, work, os.path.join(work, "%s_%s.log" % (b, cfg)), limit=a.limit)
            run = {"backend": b, "configuration": cfg, "command": " ".join(["ductile-bench"] + cmd[1:]).replace(
                work + "/", ""), "rc": r["rc"], "timed_out": r["timed_out"], "wall_seconds": r["wall_seconds"],
                "peak_rss_mb": r["peak_rss_mb"]}
            try:
                with open(out) as f:
                    run["records"] = json.load(f)
            except (OSError, ValueError):
                with open(os.path.join(work, "%s_%s.log" % (b, cfg)), errors="replace") as f:
                    run["message"] = f.read()[-1000:]
            runs.append(run)
            print("cubes %s %s: rc %d, %.1f s%s" % (b, cfg, r["rc"], r["wall_seconds"],
                                                   "" if "records" in run else ": " + run["message"][-300:]),
                  flush=True)
            save(runs)
    return runs


def mohr_coulomb(a, h, threads, work, save):
    solver = os.path.join(a.build, "solver", "ductile-solve")
    names = list(MC_JOBS) if a.models in (None, "all") else a.models.split(",")
    runs = []
    for size in sizes_of(a.sizes):
        for name in names:
            gen, args, what = MC_JOBS[name]
            job = os.path.join(work, "%s_%s.json" % (name, size))
            with open(job, "w") as f:
                subprocess.run([sys.executable, os.path.join(MC_DIR, gen)] + args[size], stdout=f, check=True)
            for b in backends_of(a.backend):
                out = os.path.join(work, "%s_%s_%s" % (name, size, b))
                cmd = [solver, job, "-o", out, "--backend", b, "--quiet"]
                if b == "cpu":
                    cmd += ["--threads", str(threads)]
                r = common.run_child(cmd, work, out + ".log", limit=a.limit)
                run = {"job": name, "size": size, "what": what, "generator": "bench/mohr_coulomb/%s %s" % (
                    gen, " ".join(args[size])), "backend": b, "threads": threads if b == "cpu" else None,
                    "rc": r["rc"], "timed_out": r["timed_out"], "wall_seconds": r["wall_seconds"],
                    "peak_rss_mb": r["peak_rss_mb"]}
                try:
                    with open(os.path.join(out, "summary.json")) as f:
                        s = json.load(f)
                    run.update({k: s[k] for k in ("completed", "reason", "n_increments", "cutbacks",
                                                  "newton_iterations", "pcg_iterations", "max_u", "max_peeq")})
                    run["timings"] = s["timings"]
                    with open(os.path.join(out, "history.csv")) as f:
                        rows = list(f)
                    head = rows[0].strip().split(",")
                    if len(head) > 9 and len(rows) > 1:  # a monitor (the footing force)
                        run["monitor"] = {head[9]: float(rows[-1].strip().split(",")[9])}
                        if name == "strip_footing":  # half model: q = |F| / b, b = 0.5, c = 10
                            run["monitor"]["q/c"] = abs(run["monitor"][head[9]]) / (0.5 * 10.0)
                except (OSError, ValueError, KeyError, IndexError) as e:
                    run["message"] = "%s: %s" % (type(e).__name__, e)
                if not os.environ.get("DUCTILE_BENCH_KEEP"):
                    shutil.rmtree(out, ignore_errors=True)
                runs.append(run)
                print("mohr_coulomb %s %s %s: rc %d, %.1f s, Newton %s, PCG %s" % (
                    name, size, b, r["rc"], r["wall_seconds"], run.get("newton_iterations"),
                    run.get("pcg_iterations")), flush=True)
                save(runs)
    return runs


LOAD_LINE = re.compile(r"clients (\d+), ([\d.]+) s: (\d+) requests, (\d+) requests/s, p50 ([\d.]+) ms, "
                       r"p99 ([\d.]+) ms, max ([\d.]+) ms, errors (\d+)")


def polling_load(a, work, args, name, what):
    """One run of tests/server/bench_load.py with extra args: its numbers as a result row."""
    srv = os.path.join(common.ROOT, "tests", "server")
    seconds = "20" if a.sizes in ("all", "large", "medium") else "10"
    binary = os.path.join(a.build, "server", "ductiled")
    cmd = [sys.executable, os.path.join(srv, "bench_load.py"), binary, "--clients", "20", "--seconds", seconds]
    log = os.path.join(work, name + ".log")
    r = common.run_child(cmd + args, work, log, limit=a.limit)
    with open(log, errors="replace") as f:
        text = f.read()
    m = LOAD_LINE.search(text)
    run = {"benchmark": name, "what": what, "rc": r["rc"],
           "command": " ".join(["python3 tests/server/bench_load.py ductiled --clients 20 --seconds", seconds] + args)}
    if m:
        run.update({"clients": int(m.group(1)), "seconds": float(m.group(2)), "requests": int(m.group(3)),
                    "requests_per_s": int(m.group(4)), "p50_ms": float(m.group(5)), "p99_ms": float(m.group(6)),
                    "max_ms": float(m.group(7)), "errors": int(m.group(8))})
    else:
        run["message"] = text[-1000:]
    print("daemon %s: %s" % (name, m.group(0) if m else text[-300:]), flush=True)
    return run


def daemon(a, h, threads, work, save):
    binary = os.path.join(a.build, "server", "ductiled")
    srv = os.path.join(common.ROOT, "tests", "server")
    runs = [polling_load(a, work, [], "polling_load", "20 clients (Python threads of one process) on keep-alive "
                         "connections poll GET /v1/jobs/{id} (token check + one SQLite row); daemon and clients "
                         "on the same host")]
    save(runs)
    wrk = shutil.which("wrk")
    if wrk:  # the same polling from wrk, as a plain user: the daemon's rate, not the clients'
        runs.append(polling_load(a, work, ["--user", "--wrk", wrk], "polling_load_wrk",
                                 "the same polling from wrk (Debian's package) as a plain user (the lookup "
                                 "checks the owner); wrk and the daemon share the host's cores"))
        save(runs)
    for interval in ("0.1", "0"):
        cmd = [sys.executable, os.path.join(srv, "bench_poll_impact.py"), binary, "--clients", "20",
               "--interval", interval]
        log = os.path.join(work, "impact_%s.log" % interval)
        r = common.run_child(cmd, work, log, limit=a.limit)
        with open(log, errors="replace") as f:
            text = f.read()
        alone = re.search(r"solver time alone: ([\d.]+) s and ([\d.]+) s", text)
        polled = re.search(r"polling every \S+ s \(([\d.]+) requests/s\): ([\d.]+) s", text)
        run = {"benchmark": "poll_impact", "interval_s": float(interval), "rc": r["rc"],
               "what": "box 14^3 hex8, 20 increments, one solver thread, through ductiled alone and while 20 "
                       "clients poll (daemon pinned to one core, clients to the others)",
               "command": "python3 tests/server/bench_poll_impact.py ductiled --clients 20 --interval " + interval}
        if alone and polled:
            run.update({"solver_seconds_alone": [float(alone.group(1)), float(alone.group(2))],
                        "requests_per_s": float(polled.group(1)), "solver_seconds_polled": float(polled.group(2))})
        else:
            run["message"] = text[-1000:]
        runs.append(run)
        last = text.strip().splitlines()[-1] if text.strip() else ""
        print("daemon poll impact (interval %s): %s" % (interval, last), flush=True)
        save(runs)
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", choices=("cubes", "mohr_coulomb", "daemon"))
    ap.add_argument("--build", required=True, help="the Release build folder (bench/run.sh builds it)")
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "both"))
    ap.add_argument("--sizes", default="small")
    ap.add_argument("--models", help="mohr_coulomb: which jobs (%s)" % ", ".join(MC_JOBS))
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    h = common.host()
    common.started_git()  # the tree as the run starts
    threads = a.threads or h["cores"]
    started = common.utc_now()
    path = a.out or common.result_path(h, started, a.suite)
    work = tempfile.mkdtemp(prefix="bench_%s_" % a.suite)
    extra = {"threads": threads, "limit_seconds": a.limit}
    save = lambda runs: common.write_result(path, a.suite, sys.argv, runs, h, started, extra)
    try:
        {"cubes": cubes, "mohr_coulomb": mohr_coulomb, "daemon": daemon}[a.suite](a, h, threads, work, save)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
