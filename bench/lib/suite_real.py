#!/usr/bin/env python3
"""The `real` suite: engineering parts meshed by Gmsh (bench/real/), each one deck that ductile
(each backend asked for) and CalculiX solve; per model and size, wall time end to end, Newton /
PCG iterations (CalculiX: Newton iterations), increments and cutbacks with their reasons, time
by phase (ductile's summary.json; CalculiX's time per increment from its .sta), peak memory,
the reaction-force history of the loaded set and the max PEEQ, and the agreement of ductile's
with CalculiX's.

    suite_real.py --solver build/bench/solver/ductile-solve [--backend cpu|cuda|both]
                  [--sizes small,medium|all] [--models a,b] [--ccx [--ccx-solver S]] [--limit 600]
                  [--threads N] [--work DIR] [--decks DIR] [--out FILE]

Writes the result JSON (bench/README.md) after every run, so a run cut short keeps what it
measured. Python 3 standard library only.
"""
import argparse
import bisect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ccxdat  # noqa: E402
import common  # noqa: E402
import make_real  # noqa: E402

TOL = {"rf_final": 0.005, "max_peeq": 0.02}  # issue 28: RF within 0.5 %, max PEEQ within 2 %
CUT = re.compile(r"increment (\d+) did not converge \(([^)]*)\): cutting back")


def read_history(path):
    rows = []
    try:
        with open(path) as f:
            head = f.readline().strip().split(",")
            for line in f:
                p = line.strip().split(",")
                if len(p) >= 9:
                    rows.append({k: p[i] for i, k in enumerate(head[:9])})
    except OSError:
        pass
    return rows


def add_dat(rec, dat, info):
    """The reaction-force and PEEQ histories of a .dat (ductile's results.dat or ccx's), when
    the run wrote one: both codes' tables are read the same way."""
    if not os.path.exists(dat):
        return
    res = ccxdat.read_dat(dat, info["rf_dof"])
    rec["rf_history"] = [[round(t, 9), v] for t, v in res["rf"]]
    rec["peeq_history"] = [[round(t, 9), v] for t, v in res["peeq"]]
    rec["rf_final"] = res["rf"][-1][1] if res["rf"] else None
    rec["max_peeq"] = res["peeq"][-1][1] if res["peeq"] else None


def run_ductile(solver, d, model, info, backend, threads, limit, precond=None, gpus=None):
    out = os.path.join(d, "out_" + backend)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [solver, model + ".inp", "-o", out, "--backend", backend, "--quiet"]
    if precond:
        cmd += ["--precond", precond]
    if gpus:  # a split run (docs/multi-gpu.md): one METIS part per listed device
        cmd += ["--gpus", gpus]
    if backend == "cpu":
        cmd += ["--threads", str(threads)]
    log = os.path.join(d, "ductile_%s.log" % backend)
    r = common.run_child(cmd, d, log, limit=limit, watch=os.path.join(out, "history.csv"))
    rec = {"code": "ductile", "backend": backend, "threads": threads if backend == "cpu" else None,
           "command": " ".join([os.path.basename(solver)] + cmd[1:]).replace(d + "/", ""),
           "rc": r["rc"], "timed_out": r["timed_out"], "wall_seconds": r["wall_seconds"],
           "peak_rss_mb": r["peak_rss_mb"]}
    with open(log, errors="replace") as f:
        text = f.read()
    reasons = {}
    for _, why in CUT.findall(text):
        reasons[why] = reasons.get(why, 0) + 1
    rec["cutback_reasons"] = reasons
    m = re.search(r"^linear solver: (.*)$", text, re.M)
    rec["linear_solver"] = m.group(1).strip() if m else None
    m = re.search(r"PCG, (\S+) preconditioner", text)
    rec["preconditioner"] = m.group(1) if m else None
    hist = read_history(os.path.join(out, "history.csv"))
    # history.csv has a header line: its first timestamp is the file's creation
    rec["increment_done_seconds"] = r["watch_times"][1:]
    try:
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        s = None
    if s:
        t = s["timings"]
        phases = {k: round(t[k], 3) for k in ("setup", "assembly", "stress", "solver", "output", "loads")}
        phases["other_in_analysis"] = round(t["total"] - sum(phases.values()), 3)
        phases["import_and_exit"] = round(r["wall_seconds"] - t["total"], 3)
        if "output_download" in t:  # a part of "output", not a phase of its own
            rec["output_download_seconds"] = round(t["output_download"], 3)
        if "output_files" in t:  # the background writer's seconds per kind of file
            rec["output_files_seconds"] = {k: round(v, 3) for k, v in t["output_files"].items()}
        if "preconditioner_setup" in t:  # a part of "solver"
            rec["preconditioner_setup_seconds"] = round(t["preconditioner_setup"], 3)
        rec.update({"status": "completed" if s["completed"] else "failed", "reason": s["reason"],
                    "message": s["message"], "increments": s["n_increments"], "cutbacks": s["cutbacks"],
                    "newton_iterations": s["newton_iterations"], "pcg_iterations": s["pcg_iterations"],
                    "analysis_seconds": round(t["total"], 3), "phases": phases,
                    "max_peeq_all_points": s["max_peeq"], "last_time": s["last_time"],
                    "nonlinear": s.get("nonlinear")})  # predictors, inexact solves, escalations, line searches
        end = (s.get("nonlinear") or {}).get("preconditioner_at_end")
        if end and rec["preconditioner"] and end != rec["preconditioner"]:  # auto moved on, or escalation
            rec["preconditioner"] += " -> " + end
    else:  # cut by the time limit or crashed: what history.csv and results.dat hold
        rec.update({"status": "timeout" if r["timed_out"] else "crashed", "reason": None,
                    "message": text.strip().splitlines()[-1][:500] if text.strip() else "",
                    "increments": len(hist), "cutbacks": sum(int(h["cutbacks"]) for h in hist),
                    "newton_iterations": sum(int(h["newton_iterations"]) for h in hist),
                    "pcg_iterations": sum(int(h["pcg_iterations"]) for h in hist),
                    "last_time": float(hist[-1]["time"]) if hist else 0.0})
    add_dat(rec, os.path.join(out, "results.dat"), info)
    if rec.get("max_peeq") is not None and rec.get("max_peeq_all_points") is not None:
        # the printed set (HOT) must hold the model's largest PEEQ, else the comparison misses it
        rec["max_peeq_outside_printed_set"] = rec["max_peeq_all_points"] > rec["max_peeq"] * (1 + 1e-6) + 1e-12
    if not os.environ.get("DUCTILE_BENCH_KEEP"):
        shutil.rmtree(out, ignore_errors=True)
    return rec


# CalculiX's equation solvers for *STATIC (its manual, *STATIC: SOLVER=): the deck says none, so
# CalculiX takes SPOOLES, its default; the iterative one is a PCG with an incomplete Cholesky
# preconditioner on one thread, which needs far less memory and may win on large models.
CCX_SOLVERS = {"spooles": None, "iterative_cholesky": "ITERATIVE CHOLESKY"}


def ccx_deck(d, model, solver):
    """The deck CalculiX reads: the suite's own, or a copy whose *STATIC names `solver`."""
    if CCX_SOLVERS[solver] is None:
        return model
    name = "%s_%s" % (model, solver)
    with open(os.path.join(d, model + ".inp")) as f:
        text = f.read()
    text, n = re.subn(r"(?m)^\*STATIC\s*$", "*STATIC, SOLVER=" + CCX_SOLVERS[solver], text)
    if n != 1:
        raise SystemExit("%s.inp: expected one *STATIC line, found %d" % (model, n))
    with open(os.path.join(d, name + ".inp"), "w") as f:
        f.write(text)
    return name


def run_ccx(ccx, d, model, info, threads, limit, solver="spooles"):
    model = ccx_deck(d, model, solver)
    for ext in (".dat", ".sta", ".frd", ".cvg"):
        try:
            os.remove(os.path.join(d, model + ext))
        except OSError:
            pass
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), CCX_NPROC_EQUATION_SOLVER=str(threads))
    log = os.path.join(d, "ccx.log")
    r = common.run_child([ccx, "-i", model], d, log, env=env, limit=limit, watch=os.path.join(d, model + ".sta"))
    sta = ccxdat.read_sta(os.path.join(d, model + ".sta"))
    with open(log, errors="replace") as f:
        text = f.read()
    m = re.search(r"Total CalculiX Time:\s*(\S+)", text)
    times = r["watch_times"][2:]  # the .sta's two header lines come first
    done = [round(t, 3) for t in times[:len(sta)]]
    per = [round(b - a, 3) for a, b in zip([0.0] + done[:-1], done)]
    rec = {"code": "ccx", "threads": threads, "command": "ccx -i " + model, "solver": solver, "rc": r["rc"],
           "timed_out": r["timed_out"], "wall_seconds": r["wall_seconds"], "peak_rss_mb": r["peak_rss_mb"],
           "status": "timeout" if r["timed_out"] else ("completed" if r["rc"] == 0 and sta and
                                                       abs(sta[-1]["time"] - 1.0) < 1e-6 else "failed"),
           "increments": len(sta), "cutbacks": sum(s["attempts"] - 1 for s in sta),
           "cutback_reasons": ccxdat.ccx_cutback_reasons(text),
           "newton_iterations": sum(s["iterations"] for s in sta), "pcg_iterations": None,
           "calculix_seconds": float(m.group(1)) if m else None,
           "increment_done_seconds": done, "increment_seconds": per,
           "last_time": sta[-1]["time"] if sta else 0.0}
    if rec["status"] != "completed":
        rec["message"] = text.strip().splitlines()[-1][:500] if text.strip() else ""
    add_dat(rec, os.path.join(d, model + ".dat"), info)
    return rec


def interp(hist, t):
    """CalculiX's curve [(time, value)] (through (0, 0)) at time t by monotone piecewise-cubic
    Hermite interpolation (Fritsch-Carlson): the two codes choose different increments, and
    straight lines between CalculiX's increments would differ from a curved history by more
    than the codes do. None outside the curve."""
    pts = [(0.0, 0.0)] + [tuple(h) for h in hist if h[0] > 0]
    if len(pts) < 2 or t < 0 or t > pts[-1][0] + 1e-9:
        return None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    n = len(xs)
    d = [(ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k]) for k in range(n - 1)]
    m = [d[0]] + [0.0 if d[k - 1] * d[k] <= 0 else
                  3 * (xs[k + 1] - xs[k - 1]) / ((2 * xs[k + 1] - xs[k] - xs[k - 1]) / d[k - 1]
                                                  + (xs[k + 1] + xs[k] - 2 * xs[k - 1]) / d[k])
                  for k in range(1, n - 1)] + [d[-1]]
    k = min(max(bisect.bisect_right(xs, t) - 1, 0), n - 2)
    h = xs[k + 1] - xs[k]
    u = (t - xs[k]) / h
    return (ys[k] * (2 * u ** 3 - 3 * u ** 2 + 1) + h * m[k] * (u ** 3 - 2 * u ** 2 + u)
            + ys[k + 1] * (-2 * u ** 3 + 3 * u ** 2) + h * m[k + 1] * (u ** 3 - u ** 2))


def agreement(dt, cx):
    """ductile against CalculiX: final RF and max PEEQ relative differences (when both reached
    the end), and the largest RF difference over ductile's increments inside CalculiX's history
    (CalculiX's curve interpolated, interp), relative to CalculiX's largest |RF|."""
    if not dt.get("rf_history") or not cx.get("rf_history"):
        return None
    a = {}
    both = dt.get("status") == "completed" and cx.get("status") == "completed"
    if both and cx.get("rf_final"):
        a["rf_final_rel"] = abs(dt["rf_final"] - cx["rf_final"]) / abs(cx["rf_final"])
    if both and cx.get("max_peeq"):
        a["max_peeq_rel"] = abs(dt["max_peeq"] - cx["max_peeq"]) / abs(cx["max_peeq"])
    scale = max(abs(v) for _, v in cx["rf_history"])
    diffs = [abs(v - interp(cx["rf_history"], t)) / scale for t, v in dt["rf_history"]
             if interp(cx["rf_history"], t) is not None]
    if diffs:
        a["rf_history_max_rel"] = max(diffs)
    if "rf_final_rel" in a and "max_peeq_rel" in a:
        a["pass"] = a["rf_final_rel"] <= TOL["rf_final"] and a["max_peeq_rel"] <= TOL["max_peeq"]
    a["tolerances"] = TOL
    return a


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solver", required=True)
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda", "both", "none"))
    ap.add_argument("--sizes", default="small")
    ap.add_argument("--models", default="all")
    ap.add_argument("--ccx", action="store_true", help="run CalculiX too (ccx on PATH or --ccx-binary)")
    ap.add_argument("--ccx-binary", default="ccx")
    ap.add_argument("--ccx-solver", default="spooles", choices=sorted(CCX_SOLVERS),
                    help="CalculiX's equation solver (*STATIC, SOLVER=; default spooles, CalculiX's own default)")
    ap.add_argument("--gmsh", default="gmsh")
    ap.add_argument("--precond", help="ductile's preconditioner (ductile-solve --precond; default: the deck's auto)")
    ap.add_argument("--limit", type=float, default=600.0, help="seconds per run (default 600)")
    ap.add_argument("--threads", type=int, default=0, help="CPU threads of ductile and CalculiX (0: all cores)")
    ap.add_argument("--work", help="where decks and outputs go (default: a temporary folder, removed)")
    ap.add_argument("--decks", help="use the decks made beforehand by make_real.py in DECKS/<model>_<size>/ "
                    "(a host without gmsh: make them elsewhere and carry them)")
    ap.add_argument("--out", help="result JSON (default bench/results/<device>-real-<UTC time>.json)")
    a = ap.parse_args()
    sizes = list(make_real.SIZES[1:]) if a.sizes == "all" else a.sizes.split(",")
    models = list(make_real.MODELS) if a.models == "all" else a.models.split(",")
    for s in sizes:
        if s not in make_real.SIZES:
            ap.error("unknown size %s (%s)" % (s, ", ".join(make_real.SIZES)))
    for m in models:
        if m not in make_real.MODELS:
            ap.error("unknown model %s (%s)" % (m, ", ".join(make_real.MODELS)))
    backends = {"both": ["cpu", "cuda"], "none": []}.get(a.backend, [a.backend])
    h = common.host()
    common.started_git()  # the tree as the run starts
    threads = a.threads or h["cores"]
    started = common.utc_now()
    path = a.out or common.result_path(h, started, "real")
    work = a.work or tempfile.mkdtemp(prefix="bench_real_")
    solver = os.path.abspath(a.solver)
    ccx = shutil.which(a.ccx_binary) if a.ccx else None
    if a.ccx and not ccx:
        print("CalculiX (%s) not found: its columns stay empty" % a.ccx_binary)
    extra = {"tools": {"gmsh": common.tool_version([a.gmsh, "--version"]),
                       "ccx": common.tool_version([ccx, "-v"], r"Version\s+(\S+)") if ccx else None},
             "threads": threads, "limit_seconds": a.limit, "ccx_solver": a.ccx_solver if ccx else None}
    runs = []
    try:
        for size in sizes:
            for model in models:
                d = os.path.join(work, "%s_%s" % (model, size))
                if a.decks:
                    shutil.copytree(os.path.join(a.decks, "%s_%s" % (model, size)), d, dirs_exist_ok=True)
                else:
                    mk = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "make_real.py"),
                                         model, size, d, "--gmsh", a.gmsh],  # one thread: -nt changes the mesh
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                    if mk.returncode != 0:
                        runs.append({"model": model, "size": size, "error": "meshing failed: " + mk.stdout[-1000:]})
                        print(mk.stdout)
                        continue
                with open(os.path.join(d, model + ".json")) as f:
                    info = json.load(f)
                run = {"model": model, "size": size, "what": info["what"], "element_type": info["element_type"],
                       "nodes": info["nodes"], "elements": info["elements"], "dofs": info["dofs"],
                       "mesh_seconds": info["mesh_seconds"], "gmsh": info["gmsh"], "load": info["load"],
                       "rf_set": info["rf_set"], "rf_dof": info["rf_dof"], "results": {}}
                runs.append(run)
                print("%s %s: %d DOFs, %d %s" % (model, size, info["dofs"], info["elements"], info["element_type"]),
                      flush=True)
                for b in backends:
                    rec = run_ductile(solver, d, model, info, b, threads, a.limit, a.precond)
                    run["results"]["ductile_" + b] = rec
                    print("  ductile %s: %s, %.1f s, %s increments, %s cutbacks %s, Newton %s, PCG %s, RF %s, "
                          "max PEEQ %s" % (b, rec["status"], rec["wall_seconds"], rec.get("increments"),
                                           rec.get("cutbacks"), rec.get("cutback_reasons") or "",
                                           rec.get("newton_iterations"), rec.get("pcg_iterations"),
                                           rec.get("rf_final"), rec.get("max_peeq")), flush=True)
                    common.write_result(path, "real", sys.argv, runs, h, started, extra)
                if ccx:
                    rec = run_ccx(ccx, d, model, info, threads, a.limit, a.ccx_solver)
                    run["results"]["ccx"] = rec
                    print("  ccx (%s): %s, %.1f s, %d increments, %d cutbacks, %d iterations, RF %s, max PEEQ %s"
                          % (a.ccx_solver, rec["status"], rec["wall_seconds"], rec["increments"], rec["cutbacks"],
                             rec["newton_iterations"], rec.get("rf_final"), rec.get("max_peeq")), flush=True)
                    for b in backends:
                        ag = agreement(run["results"]["ductile_" + b], rec)
                        run["results"]["ductile_" + b]["agreement_with_ccx"] = ag
                        if ag:
                            print("  agreement (%s): %s" % (b, {k: v for k, v in ag.items() if k != "tolerances"}))
                common.write_result(path, "real", sys.argv, runs, h, started, extra)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
