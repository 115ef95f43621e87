#!/usr/bin/env python3
"""An explicit dynamics deck asks for CalculiX's outputs (tests/interop/decks/s4_plate_explicit.inp
with *NODE FILE U, RF, *EL FILE S, E, *NODE PRINT U and *EL PRINT S, E added) and gets them:
  - results.dat: displacements of the printed set and the shells' stresses at two points per
    element (the bottom and top surfaces, whose sxx differ: the plate bends), and their strains,
    a block per frame;
  - the .frd: the shells as quadrilaterals (cgx type 9), and per frame DISP, STRESS (nonzero
    nodal values), TOSTRAIN and FORC, the reactions: zero at every unconstrained node, nonzero at the
    clamped edge;
  - the VTUs carry RF, S and E.
  explicit_outputs.py --solver ductile-solve --decks tests/interop/decks --work DIR"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dat_blocks import blocks, numbers  # noqa: E402
from frd_compare import read_frd  # noqa: E402

REQUESTS = "*NODE FILE\nU, RF\n*EL FILE\nS, E\n*NODE PRINT, NSET=LEFT\nU\n*EL PRINT, ELSET=PLATE\nS, E\n*END STEP"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--decks", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    a.solver = os.path.abspath(a.solver)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    with open(os.path.join(a.decks, "s4_plate_explicit.inp")) as f:
        deck = f.read()
    assert deck.count("*END STEP") == 1
    deck = deck.replace("*END STEP", REQUESTS)
    with open(os.path.join(a.work, "plate.inp"), "w") as f:
        f.write(deck)
    out = os.path.join(a.work, "out")
    r = subprocess.run([a.solver, "plate.inp", "-o", out, "--threads", "1"], cwd=a.work, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, "ductile-solve exit %d:\n%s%s" % (r.returncode, r.stdout, r.stderr)
    fails = []

    def check(cond, what):
        print("%-78s %s" % (what, "ok" if cond else "FAIL"))
        if not cond:
            fails.append(what)

    dat = blocks(os.path.join(out, "results.dat"))
    disp = [b for b in dat if b[0] == "displacements"]
    stress = [b for b in dat if b[0] == "stresses"]
    strain = [b for b in dat if b[0] == "strains"]
    check(len(disp) == 10 and len(stress) == 10 and len(strain) == 10,
          "results.dat: 10 displacement, stress and strain blocks (got %d, %d, %d)"
          % (len(disp), len(stress), len(strain)))
    last = stress[-1][3]
    pts = {}
    for row in last:
        v = numbers(row)
        pts.setdefault(int(v[0]), {})[int(v[1])] = v[2:]
    check(len(pts) == 16 and all(sorted(p) == [1, 2] for p in pts.values()),
          "results.dat: 16 shells, points 1 and 2 (bottom, top surface) each")
    bend = max(abs(p[1][0] - p[2][0]) for p in pts.values())
    check(bend > 1.0, "the surfaces' sxx differ (bending): largest difference %.4g" % bend)

    frd = read_frd(glob.glob(os.path.join(out, "*.frd"))[0])
    check(all(e[0] == 9 and len(e[3]) == 4 for e in frd["elements"].values()),
          ".frd: 16 shells written as 4-node quadrilaterals (type 9)")
    sets = frd["sets"]
    check(len(sets) == 10 and all({"DISP", "STRESS", "TOSTRAIN", "FORC"} <= set(s["blocks"]) for s in sets),
          ".frd: 10 frames with DISP, STRESS, TOSTRAIN and FORC")
    forc = sets[-1]["blocks"]["FORC"]
    xs = {n: x for n, x in frd["nodes"].items()}
    left = [n for n, x in xs.items() if abs(x[0]) < 1e-9]
    right = [n for n, x in xs.items() if abs(x[0] - max(v[0] for v in xs.values())) < 1e-9]
    free = [n for n in xs if n not in left and n not in right]
    check(all(max(abs(v) for v in forc[n]) == 0.0 for n in free),
          ".frd FORC: zero at the %d unconstrained nodes" % len(free))
    check(max(abs(v) for n in left for v in forc[n]) > 0.0, ".frd FORC: the clamped edge's reactions")
    stress_nodes = sets[-1]["blocks"]["STRESS"]
    check(max(abs(v) for vals in stress_nodes.values() for v in vals) > 0.0, ".frd STRESS: nonzero nodal values")

    vtus = sorted(glob.glob(os.path.join(out, "increment_*.vtu")))
    with open(vtus[-1], "rb") as f:
        text = f.read()
    check(b'Name="RF"' in text and b'Name="S"' in text and b'Name="E"' in text, "the last VTU has RF, S and E")
    if fails:
        print("FAILED: " + "; ".join(fails))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
