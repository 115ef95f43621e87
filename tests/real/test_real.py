#!/usr/bin/env python3
"""The `real` models of the benchmark suite (bench/real/) at a small size on the CPU backend,
against the stored CalculiX reference of each (bench/real/<model>/reference_<size>.json, written
by bench/lib/make_reference.py): Gmsh meshes the model again (bench/lib/make_real.py); the mesh
must have the reference's node and element counts (same Gmsh version, same mesh), then
ductile-solve runs the deck and its final reaction force on the loaded set must be within 0.5 %
of CalculiX's and its max PEEQ within 2 % (issue 28). Cutbacks are reported, not failed.

    test_real.py --solver ductile-solve [--gmsh gmsh] [--size tiny] [--work DIR] [--gpus LIST]
                 [MODEL ...]

Exits 1 when a model fails (gmsh missing included: CI installs Debian's gmsh).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "lib")
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, LIB)
import make_real  # noqa: E402
import suite_real  # noqa: E402


def one(model, a, work):
    spec = make_real.MODELS[model]
    ref_path = os.path.join(make_real.REAL, os.path.dirname(spec["geo"]), "reference_%s.json" % a.size)
    if not os.path.exists(ref_path):
        return "no reference %s (bench/lib/make_reference.py %s %s)" % (ref_path, a.size, model), None, None
    with open(ref_path) as f:
        ref = json.load(f)
    d = os.path.join(work, model)
    mk = subprocess.run([sys.executable, os.path.join(LIB, "make_real.py"), model, a.size, d, "--gmsh", a.gmsh],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if mk.returncode != 0:
        return "meshing failed: " + mk.stdout[-800:], None, None
    with open(os.path.join(d, model + ".json")) as f:
        info = json.load(f)
    if (info["nodes"], info["elements"]) != (ref["nodes"], ref["elements"]):
        return ("the mesh differs from the reference's: %d nodes / %d elements with %s, the reference %d / %d "
                "with %s (regenerate: python3 bench/lib/make_reference.py %s %s)"
                % (info["nodes"], info["elements"], info["gmsh"], ref["nodes"], ref["elements"], ref["gmsh"],
                   a.size, model)), None, info
    rec = suite_real.run_ductile(a.solver, d, model, info, "cpu", a.threads, a.limit, gpus=a.gpus)
    if rec["status"] != "completed":
        return "ductile-solve %s (rc %s): %s" % (rec["status"], rec["rc"], rec.get("message")), rec, info
    rf = abs(rec["rf_final"] - ref["rf_final"]) / abs(ref["rf_final"])
    pe = abs(rec["max_peeq"] - ref["max_peeq"]) / abs(ref["max_peeq"])
    rec["check"] = (rf, pe)
    bad = []
    if rf > suite_real.TOL["rf_final"]:
        bad.append("final RF %.6g against CalculiX's %.6g: %.2f %% > 0.5 %%"
                   % (rec["rf_final"], ref["rf_final"], 100 * rf))
    if pe > suite_real.TOL["max_peeq"]:
        bad.append("max PEEQ %.6g against CalculiX's %.6g: %.2f %% > 2 %%"
                   % (rec["max_peeq"], ref["max_peeq"], 100 * pe))
    return "; ".join(bad) or None, rec, info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--gmsh", default="gmsh")
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=float, default=300.0)
    ap.add_argument("--work")
    ap.add_argument("--gpus", help="split the run into one part per listed device (on the CPU "
                    "backend the parts run on the host), e.g. 0,1,2")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    a.solver = os.path.abspath(a.solver)
    if shutil.which(a.gmsh) is None:
        print("FAIL: gmsh (%s) is not on PATH: install Debian's gmsh" % a.gmsh)
        return 1
    work = a.work or tempfile.mkdtemp(prefix="test_real_")
    failed = 0
    print("| model | DOFs | ductile s | increments | cutbacks (reasons) | Newton / PCG | RF rel. diff "
          "| max PEEQ rel. diff | result |")
    print("|---|---|---|---|---|---|---|---|---|")
    try:
        for model in a.models or list(make_real.MODELS):
            err, rec, info = one(model, a, work)
            failed += err is not None
            if rec is None or "check" not in rec:
                print("| %s | | | | | | | | FAIL: %s |" % (model, err))
                continue
            print("| %s | %d | %.1f | %d | %d %s | %d / %d | %.1e | %.1e | %s |" % (
                model, info["dofs"], rec["wall_seconds"],
                rec["increments"], rec["cutbacks"], rec["cutback_reasons"] or "", rec["newton_iterations"],
                rec["pcg_iterations"], rec["check"][0], rec["check"][1], "ok" if err is None else "FAIL: " + err),
                flush=True)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
