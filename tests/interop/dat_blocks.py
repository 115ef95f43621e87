#!/usr/bin/env python3
"""results.dat's blocks as CalculiX writes them, checked against numbers derived by hand.

A bar of two hex8 (x in [0, 2], section 1 x 1), clamped at x = 0 (set FIX) and pulled by 1 per
node along x at x = 2 (set TIP, 4 nodes):

- `forces` is the internal nodal force at every node of the set (CalculiX's *NODE PRINT RF): the
  load (1, 0, 0) at each TIP node, 0 at the free unloaded nodes x = 1, and at FIX the reactions,
  fx = -1 at each node by the symmetry of the section, total (-4, 0, 0); NALL's total is 0;
- TOTALS=YES adds a "total force" block after the forces, TOTALS=ONLY prints it instead, in
  CalculiX's (6x, 1p, 3(1x, e13.6)) line; U blocks ignore TOTALS, as in CalculiX;
- blocks come in the order of the variables on the data lines and of the requests in the step;
  the first *NODE PRINT of a step replaces the node requests of earlier steps, a step without
  *EL PRINT keeps the element ones;
- a variable printed by *EL PRINT and listed by no *EL FILE (E here) is printed all the same.

A one-element CPE4 plate of thickness 0.01 under two nodal loads of 0.5 checks the forces of 2D
elements (the thickness enters f_int): 0.5 at the loaded nodes, the reactions at the supports.

When ccx is on PATH, CalculiX runs the same decks and its .dat must list the same blocks (kind,
set, time, in order) with the same values (to 1e-6 of the largest value of the quantity); without it
only the hand checks run.

    dat_blocks.py --solver build/solver/ductile-solve --work DIR
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HEX2 = """*HEADING
bar of two hex8
*NODE, NSET=NALL
1, 0, 0, 0
2, 1, 0, 0
3, 1, 1, 0
4, 0, 1, 0
5, 0, 0, 1
6, 1, 0, 1
7, 1, 1, 1
8, 0, 1, 1
9, 2, 0, 0
10, 2, 1, 0
11, 2, 0, 1
12, 2, 1, 1
*ELEMENT, TYPE=C3D8, ELSET=EALL
1, 1, 2, 3, 4, 5, 6, 7, 8
2, 2, 9, 10, 3, 6, 11, 12, 7
*NSET, NSET=FIX
1, 4, 5, 8
*NSET, NSET=TIP
9, 10, 11, 12
*NSET, NSET=MID
2, 3, 6, 7
*MATERIAL, NAME=STEEL
*ELASTIC
210000., 0.3
*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL
*BOUNDARY
FIX, 1, 3
*STEP
*STATIC
*CLOAD
TIP, 1, 1.
*NODE FILE
U
*EL FILE
S
*NODE PRINT, NSET=TIP
RF, U
*EL PRINT, ELSET=EALL
E, S
*NODE PRINT, NSET=FIX, TOTALS=YES
U, RF
*NODE PRINT, NSET=MID
RF
*NODE PRINT, NSET=NALL, TOTALS=ONLY
U, RF
*END STEP
*STEP
*STATIC
*CLOAD
TIP, 1, 2.
*NODE PRINT, NSET=FIX, TOTALS=ONLY
RF
*END STEP
"""

CPE4 = """*NODE, NSET=NALL
1, 1, 0, 0
2, 0, 0, 0
3, 0, 1, 0
4, 1, 1, 0
*ELEMENT, TYPE=CPE4, ELSET=EALL
1, 1, 4, 3, 2
*BOUNDARY
1, 2, 2
2, 1, 2
*MATERIAL, NAME=EL
*ELASTIC
210000, .3
*SOLID SECTION, ELSET=EALL, MATERIAL=EL
0.01
*STEP
*STATIC
*CLOAD
3, 2, 0.5
4, 2, 0.5
*NODE PRINT, NSET=NALL, TOTALS=YES
RF
*END STEP
"""

HEAD = re.compile(r"^ (displacements|forces|total force|stresses|strains) \([^)]*\)\s*for\s*set (\S+) and time\s+(\S+)$")
TOTAL_LINE = re.compile(r"^ {6}( [ -]\d\.\d{6}E[-+]\d\d){3}$")


def blocks(path):
    """[(kind, set, time, [rows])]: rows are the lists of numbers under each header, in order."""
    out = []
    with open(path) as f:
        for line in f:
            m = HEAD.match(line.rstrip("\n"))
            if m:
                out.append((m.group(1), m.group(2), float(m.group(3)), []))
            elif out and line.strip():
                out[-1][3].append(line.rstrip("\n"))
    return out


KEYS = {"displacements": 1, "forces": 1, "total force": 0, "stresses": 2, "strains": 2}  # id columns


def numbers(row):
    return [float(v) for v in row.split()]


class Checks:
    def __init__(self):
        self.failed = 0

    def __call__(self, cond, what):
        print("%-72s %s" % (what, "ok" if cond else "FAIL"))
        self.failed += not cond


def by_node(rows):
    return {int(r.split()[0]): numbers(r)[1:] for r in rows}


def close(a, b, tol=1e-9):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def run(solver, d, name, text):
    os.makedirs(d)
    with open(os.path.join(d, name + ".inp"), "w") as f:
        f.write(text)
    p = subprocess.run([solver, name + ".inp", "-o", "out", "--backend", "cpu", "--quiet"], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    if p.returncode != 0:
        print(p.stdout[-2000:])
        raise SystemExit("ductile-solve failed on %s (rc %d)" % (name, p.returncode))
    return blocks(os.path.join(d, "out", "results.dat"))


def against_ccx(ck, d, name, got):
    """CalculiX's .dat for the same deck: the same blocks in the same order, the same values."""
    if shutil.which("ccx") is None:
        print("ccx is not on PATH: %s is checked by hand only" % name)
        return
    p = subprocess.run(["ccx", "-i", name], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120, env=dict(os.environ, OMP_NUM_THREADS="1"))
    ck(p.returncode == 0 and os.path.exists(os.path.join(d, name + ".dat")), "%s: ccx runs" % name)
    if p.returncode != 0:
        return
    ref = blocks(os.path.join(d, name + ".dat"))
    ck([b[:3] for b in ref] == [b[:3] for b in got],
       "%s: CalculiX's blocks, in its order (%d blocks)" % (name, len(ref)))
    # the scale of a block: its largest value, or its quantity's over the deck when larger (a
    # total force of 1e-30 is a zero, compared with the deck's forces)
    kind_max = {}
    for k, _, _, rows in ref:
        q = "forces" if k == "total force" else k
        kind_max[q] = max([kind_max.get(q, 0.0)] + [abs(v) for row in rows for v in numbers(row)[KEYS[k]:]])
    worst = 0.0
    for r, g in zip(ref, got):
        if r[:3] != g[:3] or len(r[3]) != len(g[3]):
            worst = float("inf")
            continue
        scale = kind_max["forces" if r[0] == "total force" else r[0]] or 1.0
        for a, b in zip(r[3], g[3]):
            na, nb, nk = numbers(a), numbers(b), KEYS[r[0]]
            if na[:nk] != nb[:nk]:
                worst = float("inf")
                continue
            worst = max(worst, max(abs(x - y) for x, y in zip(na[nk:], nb[nk:])) / scale)
    ck(worst <= 1e-6, "%s: CalculiX's values to 1e-6 of their quantity's largest (worst %.1e)" % (name, worst))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    solver = os.path.abspath(args.solver)
    shutil.rmtree(args.work, ignore_errors=True)
    ck = Checks()

    d = os.path.join(args.work, "bar")
    got = run(solver, d, "bar", HEX2)
    order = [(k, s, t) for k, s, t, _ in got]
    ck(order == [("forces", "TIP", 1.0), ("displacements", "TIP", 1.0), ("strains", "EALL", 1.0),
                 ("stresses", "EALL", 1.0), ("displacements", "FIX", 1.0), ("forces", "FIX", 1.0),
                 ("total force", "FIX", 1.0), ("forces", "MID", 1.0), ("displacements", "NALL", 1.0),
                 ("total force", "NALL", 1.0),
                 ("strains", "EALL", 2.0), ("stresses", "EALL", 2.0), ("total force", "FIX", 2.0)],
       "blocks in the order of variables and requests; step 2 replaces the node requests")
    blk = {(k, s, t): rows for k, s, t, rows in got}
    tip = by_node(blk["forces", "TIP", 1.0])
    ck(sorted(tip) == [9, 10, 11, 12] and all(close(v, [1, 0, 0]) for v in tip.values()),
       "forces at the loaded free nodes: the load (1, 0, 0)")
    mid = by_node(blk["forces", "MID", 1.0])
    ck(all(close(v, [0, 0, 0]) for v in mid.values()), "forces at the free unloaded nodes: 0")
    fix = by_node(blk["forces", "FIX", 1.0])
    ck(all(abs(v[0] + 1) <= 1e-9 for v in fix.values()), "forces at the supports: the reactions, fx = -1 each")
    ck(all(TOTAL_LINE.match(blk[k][0]) for k in blk if k[0] == "total force") and
       all(len(blk[k]) == 1 for k in blk if k[0] == "total force"), "total force: one line in CalculiX's format")
    ck(close(numbers(blk["total force", "FIX", 1.0][0]), [-4, 0, 0]), "total force at the supports: -(the load)")
    ck(close(numbers(blk["total force", "NALL", 1.0][0]), [0, 0, 0]), "total force over the whole model: 0")
    ck(close(numbers(blk["total force", "FIX", 2.0][0]), [-8, 0, 0]), "step 2: total force at the supports")
    ck(len(blk["strains", "EALL", 2.0]) == 16, "strains printed though no *EL FILE lists E (16 points)")
    against_ccx(ck, d, "bar", got)

    d = os.path.join(args.work, "plate")
    got = run(solver, d, "plate", CPE4)
    blk = {(k, s, t): rows for k, s, t, rows in got}
    f = by_node(blk["forces", "NALL", 1.0])
    ck(close(f[3], [0, 0.5, 0]) and close(f[4], [0, 0.5, 0]), "CPE4, thickness 0.01: forces at the loaded nodes 0.5")
    ck(abs(f[1][1] + f[2][1] + 1) <= 1e-9 and abs(f[2][0]) <= 1e-9, "CPE4: the reactions balance the loads")
    ck(close(numbers(blk["total force", "NALL", 1.0][0]), [0, 0, 0]), "CPE4: total force over the model 0")
    against_ccx(ck, d, "plate", got)

    print("FAIL (%d)" % ck.failed if ck.failed else "PASS")
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
