#!/usr/bin/env python3
"""Gmsh round trip: generate the plate with a hole (2D) and the bracket (3D) from the .geo files
of tests/interop with Gmsh in formats 4.1 and 2.2, ASCII and binary; check that all four
import to the same counts, sets and surfaces with positive Jacobians (test_gmsh_import), and
that ductile-solve completes an elastic job on each mesh (mesh.msh --job job.json).
gmsh must be on PATH (CI installs Debian's gmsh): missing gmsh is a failure."""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = [("msh41", []), ("msh41", ["-bin"]), ("msh22", []), ("msh22", ["-bin"])]
STEEL = [{"name": "steel", "elastic": {"E": 210000, "nu": 0.3}}]
JOBS = {
    "plate": {"ductile": 1, "title": "plate with a hole", "materials": STEEL,
              "sections": [{"element_set": "plate", "material": "steel", "kind": "plane_strain"}],
              "steps": [{"boundary": [{"node_set": "symx", "fixed": ["x"]}, {"node_set": "symy", "fixed": ["y"]}],
                         "loads": [{"type": "pressure", "surface": "load", "value": -100}]}],
              "output": {"vtu": False}},
    "bracket": {"ductile": 1, "title": "bracket", "materials": STEEL,
                "sections": [{"element_set": "bracket", "material": "steel", "kind": "solid"}],
                "steps": [{"boundary": [{"node_set": "fixed", "fixed": "all"}],
                           "loads": [{"type": "pressure", "surface": "loaded", "value": 10}]}],
                "output": {"vtu": False}},
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--importer", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    args.solver = os.path.abspath(args.solver)
    if shutil.which("gmsh") is None:
        print("FAIL: gmsh is not on PATH: install Debian's gmsh (scripts/setup-debian.sh)")
        return 1
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    failed = False
    for geo, dim in (("plate", "-2"), ("bracket", "-3")):
        src = os.path.join(HERE, "plate_hole.geo" if geo == "plate" else "bracket.geo")
        files = []
        for fmt, extra in FORMATS:
            out = os.path.join(args.work, "%s_%s%s.msh" % (geo, fmt, "_bin" if extra else ""))
            p = subprocess.run(["gmsh", dim, src, "-format", fmt, *extra, "-o", out], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                print("FAIL: gmsh %s %s: %s" % (geo, fmt, p.stdout[-500:]))
                return 1
            files.append(out)
        p = subprocess.run([args.importer, geo] + files, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(p.stdout, end="")
        failed |= p.returncode != 0
        job = os.path.join(args.work, geo + ".json")
        with open(job, "w") as f:
            json.dump(JOBS[geo], f)
        for msh in files:
            p = subprocess.run([args.solver, msh, "--job", job, "-o", msh + ".out", "--backend", "cpu", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            ok = p.returncode == 0 and "completed" in p.stdout
            print("%s %s" % ("solved" if ok else "FAIL: did not solve", os.path.basename(msh)))
            if not ok:
                print(p.stdout[-800:])
            failed |= not ok
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
