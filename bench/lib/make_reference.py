#!/usr/bin/env python3
"""Write the stored CalculiX reference of `real` models, which CI's test (tests/real/test_real.py)
compares ductile with: meshes the model (bench/lib/make_real.py), runs CalculiX on the deck and
writes bench/real/<model>/reference_<size>.json: the Gmsh and CalculiX versions, the mesh's node,
element and DOF counts (the test first checks that its mesh has the same), the reaction-force
history of the loaded set, the final reaction force and the max PEEQ.

    make_reference.py SIZE [MODEL ...] [--ccx ccx] [--gmsh gmsh] [--threads N]

Python 3 standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import make_real  # noqa: E402
import suite_real  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("size", choices=make_real.SIZES)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--ccx", default="ccx")
    ap.add_argument("--gmsh", default="gmsh")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--limit", type=float, default=3600.0)
    a = ap.parse_args()
    ccx = shutil.which(a.ccx)
    if not ccx:
        raise SystemExit("CalculiX (%s) not found" % a.ccx)
    threads = a.threads or common.host()["cores"]
    work = tempfile.mkdtemp(prefix="bench_ref_")
    failed = 0
    try:
        for model in a.models or list(make_real.MODELS):
            d = os.path.join(work, model)
            subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "make_real.py"), model, a.size, d,
                            "--gmsh", a.gmsh], check=True)
            with open(os.path.join(d, model + ".json")) as f:
                info = json.load(f)
            rec = suite_real.run_ccx(ccx, d, model, info, threads, a.limit)
            if rec["status"] != "completed":
                print("%s: CalculiX %s: %s" % (model, rec["status"], rec.get("message")))
                failed += 1
                continue
            ref = {"model": model, "size": a.size, "gmsh": info["gmsh"], "s": info["s"],
                   "ccx": common.tool_version([ccx, "-v"], r"Version\s+(\S+)"),
                   "nodes": info["nodes"], "elements": info["elements"], "dofs": info["dofs"],
                   "element_type": info["element_type"], "load": info["load"], "rf_set": info["rf_set"],
                   "rf_dof": info["rf_dof"], "increments": rec["increments"], "cutbacks": rec["cutbacks"],
                   "rf_final": rec["rf_final"], "max_peeq": rec["max_peeq"], "rf_history": rec["rf_history"],
                   "peeq_history": rec["peeq_history"],
                   "generated_by": "python3 bench/lib/make_reference.py %s %s" % (a.size, model),
                   "date": common.utc_now().strftime("%Y-%m-%d")}
            path = os.path.join(make_real.REAL, os.path.dirname(make_real.MODELS[model]["geo"]),
                                "reference_%s.json" % a.size)
            with open(path, "w") as f:
                json.dump(ref, f, indent=1)
                f.write("\n")
            print("%s %s: %d DOFs, CalculiX %.1f s, %d increments, RF %.6g, max PEEQ %.6g -> %s"
                  % (model, a.size, info["dofs"], rec["wall_seconds"], rec["increments"], rec["rf_final"],
                     rec["max_peeq"], os.path.relpath(path, common.ROOT)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
