#!/usr/bin/env python3
"""*EL PRINT ENER, ELSE and EVOL (results.dat) against numbers derived by hand and against ccx.

CalculiX 2.20 prints, per request and in the order of its variables:
  ENER  "internal energy density (elem, integ.pnt.,energy)": the work done on the point, for a
        linear elastic material 1/2 sigma : eps;
  ELSE  "internal energy (element, energy)": the volume integral of ENER over the element (its
        own integration rule), then with TOTALS=YES "total internal energy" (the sum over the set);
  EVOL  "volume (element, volume)": the element's volume (plane elements: area x thickness), then
        with TOTALS=YES "total volume"; TOTALS=ONLY prints only the sums.

Checked by hand (relative 1e-6, the file's 7 digits):
- bar: two unit cubes of C3D8 in a row, free to contract, pulled by 25 at each of the 4 end
  nodes: sigma_xx = 100 everywhere, so ENER = sigma^2 / (2 E) = 100^2 / (2 * 210000) at every
  point, ELSE = ENER * 1, EVOL = 1, total volume 2, total internal energy 2 ENER;
- plate: two unit squares of CPE4, thickness 0.01, a non-uniform field: EVOL = 0.01, and at each
  point ENER = 1/2 (sum of sxx exx.. + 2 sxy exy..) from the S and E the same file prints (tensor
  shears), ELSE = sum over the 4 points of ENER * 0.0025 (w det J t for the square's 2x2 rule).
Against ccx 2.20 (when on PATH), the same decks and the C3D20, C3D10 and C3D15 decks of
tests/interop/decks with the request added, and the plastic CPE8 plate with a hole (EVOL only):
every block CalculiX prints (ENER rows mapped onto ductile's points for 2D elements, which
CalculiX expands into layers of 3D points, as ccx_compare.point_map) to 1e-3 of the block's
largest |value|; the bar to 1e-6.
Refused with the request's file:line: ENER or ELSE on a plastic material (CalculiX accumulates
the work, plastic dissipation included: a history ductile does not keep), the three in *EL FILE,
and in an explicit step.

    dat_energy.py --solver build/solver/ductile-solve --work DIR
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ccx_compare  # noqa: E402

E_MOD = 210000.0
KINDS = ("internal energy density", "internal energy", "volume", "total internal energy", "total volume",
         "stresses", "strains")
REQUEST = "*EL PRINT, ELSET=EALL, TOTALS=YES\nENER, ELSE, EVOL\n"

BAR = """*NODE, NSET=NALL
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
*NSET, NSET=TIP
9, 10, 11, 12
*MATERIAL, NAME=STEEL
*ELASTIC
210000., 0.3
*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL
*BOUNDARY
1, 1, 3
4, 1, 1
5, 1, 1
8, 1, 1
4, 3, 3
5, 2, 2
*STEP
*STATIC
*CLOAD
TIP, 1, 25.
*EL PRINT, ELSET=EALL
ENER
*EL PRINT, ELSET=EALL, TOTALS=YES
EVOL, ELSE
*EL PRINT, ELSET=EALL, TOTALS=ONLY
ELSE
*END STEP
"""

PLATE = """*NODE, NSET=NALL
1, 1, 0, 0
2, 0, 0, 0
3, 0, 1, 0
4, 1, 1, 0
5, 2, 0, 0
6, 2, 1, 0
*ELEMENT, TYPE=CPE4, ELSET=EALL
1, 1, 4, 3, 2
2, 5, 6, 4, 1
*BOUNDARY
2, 1, 2
3, 1, 1
*MATERIAL, NAME=EL
*ELASTIC
210000, .3
*SOLID SECTION, ELSET=EALL, MATERIAL=EL
0.01
*STEP
*STATIC
*CLOAD
5, 1, 0.5
6, 1, 0.5
6, 2, 0.1
*EL PRINT, ELSET=EALL, TOTALS=YES
ENER, ELSE, EVOL, S, E
*END STEP
"""


class Checks:
    def __init__(self):
        self.failed = 0

    def __call__(self, cond, what):
        print("%-84s %s" % (what, "ok" if cond else "FAIL"))
        self.failed += not cond


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def write(d, name, text):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".inp"), "w") as f:
        f.write(text)


def solve(solver, d, name):
    """(exit code, stderr+stdout) of ductile-solve on d/name.inp."""
    p = subprocess.run([solver, name + ".inp", "-o", "out", "--backend", "cpu", "--quiet"], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    return p.returncode, p.stdout


def blocks(path):
    return ccx_compare.read_dat(path, KINDS)


def ccx(d, name):
    """CalculiX's blocks of d/name.inp, or None when ccx is not on PATH."""
    if shutil.which("ccx") is None:
        return None
    p = subprocess.run(["ccx", "-i", name], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300, env=dict(os.environ, OMP_NUM_THREADS="1"))
    if p.returncode != 0 or not os.path.exists(os.path.join(d, name + ".dat")):
        raise SystemExit("ccx failed on %s: %s" % (name, p.stdout[-1000:]))
    return blocks(os.path.join(d, name + ".dat"))


def against_ccx(ck, name, got, ref, tol):
    """Every block of CalculiX's (kind, set, time) in ductile's, in the same order, to tol of the
    block's largest |CalculiX value|; element point blocks mapped as ccx_compare.point_map."""
    if ref is None:
        print("ccx is not on PATH: %s is checked by hand only" % name)
        return
    ref = [b for b in ref if b[0] not in ("stresses", "strains")]
    got = [b for b in got if b[0] not in ("stresses", "strains")]
    ck([b[:3] for b in ref] == [b[:3] for b in got],
       "%s: CalculiX's blocks in its order (%s)" % (name, ", ".join(b[0] for b in ref)))
    worst = 0.0
    for (kind, _, _, b), (_, _, _, g) in zip(ref, got):
        keys = ccx_compare.point_map(g, b) if kind == "internal energy density" else {k: k for k in b}
        if keys is None or any(keys[k] not in g for k in b):
            worst = float("inf")
            continue
        scale = max(abs(v[0]) for v in b.values()) or 1.0
        worst = max([worst] + [abs(g[keys[k]][0] - v[0]) / scale for k, v in b.items()])
    ck(worst <= tol, "%s: ENER, ELSE, EVOL and totals agree with ccx to %.0e of each block's max (worst %.1e)"
       % (name, tol, worst))


def add_request(text, request):
    return re.sub(r"(?im)^\*END STEP", request.replace("\\", "\\\\") + "*END STEP", text, count=1)


def refused(ck, solver, d, name, text, line, what, words):
    write(d, name, text)
    rc, out = solve(solver, d, name)
    ok = rc == 1 and ("%s.inp:%d:" % (name, line)) in out and all(w in out for w in words)
    ck(ok, "refused with file:line: %s" % what)
    if not ok:
        print(out[-1500:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    solver = os.path.abspath(args.solver)
    shutil.rmtree(args.work, ignore_errors=True)
    ck = Checks()

    d = os.path.join(args.work, "bar")
    write(d, "bar", BAR)
    rc, out = solve(solver, d, "bar")
    if rc != 0:
        print(out[-2000:])
        raise SystemExit("ductile-solve failed on bar (rc %d)" % rc)
    got = blocks(os.path.join(d, "out", "results.dat"))
    ener = 100.0 ** 2 / (2 * E_MOD)
    kinds = [b[0] for b in got]
    ck(kinds == ["internal energy density", "volume", "total volume", "internal energy", "total internal energy",
                 "total internal energy"],
       "bar: blocks in the order of the requests and variables; TOTALS=ONLY prints the sum only")
    by = {}
    for kind, _, _, b in got:
        by.setdefault(kind, []).append(b)
    pts = by["internal energy density"][0]
    ck(len(pts) == 16 and all(rel(v[0], ener) <= 1e-6 for v in pts.values()),
       "bar: ENER = sigma^2 / (2 E) = %.7g at all 16 points" % ener)
    ck(all(rel(v[0], 1.0) <= 1e-6 for v in by["volume"][0].values()), "bar: EVOL = 1 per element")
    ck(rel(by["total volume"][0][()][0], 2.0) <= 1e-6, "bar: total volume 2")
    ck(all(rel(v[0], ener) <= 1e-6 for v in by["internal energy"][0].values()), "bar: ELSE = ENER x 1 per element")
    ck(all(rel(t[()][0], 2 * ener) <= 1e-6 for t in by["total internal energy"]), "bar: total internal energy 2 ENER")
    against_ccx(ck, "bar", got, ccx(d, "bar"), 1e-6)

    d = os.path.join(args.work, "plate")
    write(d, "plate", PLATE)
    rc, out = solve(solver, d, "plate")
    if rc != 0:
        print(out[-2000:])
        raise SystemExit("ductile-solve failed on plate (rc %d)" % rc)
    got = blocks(os.path.join(d, "out", "results.dat"))
    by = {kind: b for kind, _, _, b in got}
    s, e, en = by["stresses"], by["strains"], by["internal energy density"]
    hand = {k: 0.5 * (sum(s[k][c] * e[k][c] for c in range(3)) + 2 * sum(s[k][c] * e[k][c] for c in range(3, 6)))
            for k in s}
    scale = max(abs(v) for v in hand.values())
    ck(sorted(en) == sorted(hand) and all(abs(en[k][0] - hand[k]) <= 1e-6 * scale for k in hand),
       "plate: ENER = 1/2 sigma : eps from the printed S and E (tensor shears doubled)")
    ck(all(rel(v[0], 0.01) <= 1e-6 for v in by["volume"].values()), "plate: EVOL = area x thickness = 0.01")
    else_hand = {el: sum(hand[el, q] for q in range(1, 5)) * 0.0025 for el in (1, 2)}
    ck(all(rel(by["internal energy"][el][0], else_hand[el]) <= 1e-5 for el in (1, 2)),
       "plate: ELSE = sum of ENER x w det J t (0.0025 a point)")
    ck(rel(by["total internal energy"][()][0], else_hand[1] + else_hand[2]) <= 1e-5,
       "plate: total internal energy = the sum of ELSE")
    against_ccx(ck, "plate", got, ccx(d, "plate"), 1e-3)

    for name, request in (("hex20_elastic", REQUEST), ("tet10_elastic", REQUEST), ("wedge15_elastic", REQUEST),
                          ("quad8_pe_hole", "*EL PRINT, ELSET=EALL, TOTALS=YES\nEVOL\n")):
        d = os.path.join(args.work, name)
        with open(os.path.join(HERE, "decks", name + ".inp")) as f:
            write(d, name, add_request(f.read(), request))
        rc, out = solve(solver, d, name)
        ck(rc == 0, "%s: runs with %s" % (name, request.split("\n")[1]))
        if rc != 0:
            print(out[-2000:])
            continue
        got = [b for b in blocks(os.path.join(d, "out", "results.dat"))
               if b[0] not in ("stresses", "strains")]
        ck(len(got) > 0, "%s: prints the energy/volume blocks" % name)
        against_ccx(ck, name, got, ccx(d, name), 1e-3)

    d = os.path.join(args.work, "refused")
    with open(os.path.join(HERE, "decks", "hex8_iso_pressure.inp")) as f:
        plastic = f.read()
    line = plastic[:re.search(r"(?im)^\*END STEP", plastic).start()].count("\n") + 1
    refused(ck, solver, d, "plastic_ener", add_request(plastic, "*EL PRINT, ELSET=EALL\nS, ENER\n"), line,
            "ENER on a plastic material", ["linear elastic materials only"])
    refused(ck, solver, d, "plastic_else", add_request(plastic, "*EL PRINT, ELSET=EALL\nELSE\n"), line,
            "ELSE on a plastic material", ["linear elastic materials only"])
    refused(ck, solver, d, "file_ener", add_request(BAR, "*EL FILE\nS, ENER\n"),
            BAR[:re.search(r"(?im)^\*END STEP", BAR).start()].count("\n") + 2, "ENER in *EL FILE",
            ["'ENER' is not supported"])
    with open(os.path.join(HERE, "decks", "s4_plate_explicit.inp")) as f:
        xp = f.read()
    m = re.search(r"(?im)^\*END STEP", xp)
    refused(ck, solver, d, "explicit_evol", add_request(xp, "*EL PRINT, ELSET=PLATE\nEVOL\n"),
            xp[:m.start()].count("\n") + 1, "EVOL in an explicit step", ["explicit steps"])

    print("FAIL (%d)" % ck.failed if ck.failed else "PASS")
    return 1 if ck.failed else 0


if __name__ == "__main__":
    sys.exit(main())
