#!/usr/bin/env python3
"""Cross-validation against CalculiX: ductile-solve and ccx solve the same decks
(tests/interop/decks/*.inp) and their nodal displacements (and, where a deck prints them,
reaction forces and stresses) are compared.

For every deck both solvers print the displacements of all nodes (*NODE PRINT, NSET=NALL) at
every increment; the last block of each step is compared. The error of a step is
    max over nodes and components |u_ductile - u_ccx| / max |u_ccx|,
with max |u_ccx| taken over all the deck's steps (an unloaded step's own maximum would inflate
its error), and the deck's error is the largest over its steps. Tolerances: 1e-6 for elastic decks, 1e-2
(1 %) for elastoplastic ones.

A deck that also prints reaction forces (*NODE PRINT RF) or stresses (*EL PRINT S) has every
such block of CalculiX's compared in the same way, to the same tolerance: the scale is the
largest |RF| (over all the force blocks of the deck's step ends) or |S| component. ductile must
print every block CalculiX prints. CalculiX expands a 2D element into a one-element-thick 3D
brick (CPE4 -> C3D8 with 2 layers of 4 points, CPE8 -> C3D20 with 3 layers of 9): each layer
lists the in-plane points in ductile's order, so CalculiX's point q is compared with ductile's
point (q - 1) mod n + 1, n ductile's points of the element: every layer is checked. An
axisymmetric element (CAX*) becomes a 2-degree sector whose off-plane points print shears sxz,
syz that the ring does not have (drop_sector_shears): those two are not compared.

Writes the table (Markdown) to --table and stdout; exits 1 if a tolerance is exceeded or a
solver is missing or fails (ccx must be on PATH: CI installs Debian's calculix-ccx).

    ccx_compare.py --solver build/solver/ductile-solve [--ccx ccx] [--table out.md] [deck ...]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DECKS = {  # name: (tolerance, what it covers)
    "hex8_elastic": (1e-6, "C3D8, elastic, end force + face pressure"),
    "hex8_equation": (1e-6, "C3D8, elastic, end face tied by *EQUATION (z to a master, y chained: cascaded; a "
                            "3-term equation), loads on a master and on a dependent DOF; RF (supported and "
                            "tied nodes) and S too"),
    "hex8_equation_iso": (1e-2, "C3D8, isotropic table, the tied end face bent through its master by a prescribed "
                                "displacement (5 DIRECT increments), brought back half way; RF and S too; no cutback"),
    "hex8_transform_rect": (1e-6, "C3D8, elastic, end face in a rectangular *TRANSFORM (45 deg about z): an "
                                  "oblique local DOF fixed (an equation), a local z prescribed, local end load in "
                                  "2 steps; local and GLOBAL=YES prints, RF and S too"),
    "hex8_transform_cyl": (1e-6, "C3D8 ring sector, elastic, cylindrical *TRANSFORM: outer face held radially "
                                 "(equations), top loaded tangentially and axially; local and GLOBAL=YES RF, S too"),
    "hex8r_elastic": (1e-6, "C3D8R (static: one point, hourglass stiffness), elastic, end force + face pressure; "
                            "RF and S too"),
    "hex8r_iso": (1e-3, "C3D8R, isotropic table, bar on symmetry planes pulled past yield and back (uniform "
                        "strain: the one point's J2 update); RF and S too"),
    "hex8i_elastic": (1e-6, "C3D8I (incompatible modes, condensed), elastic, end force + face pressure; RF and "
                            "S too"),
    "hex8i_iso": (1e-3, "C3D8I, isotropic table, pressure (10 DIRECT increments), unload (OP=NEW); RF and S too"),
    "tet10_elastic": (1e-6, "C3D10, elastic, prescribed displacement + gravity"),
    "quad4_pe_elastic": (1e-6, "CPE4 plane strain, elastic, edge pressure"),
    "quad4_pe_iso": (1e-2, "CPE4 plane strain, isotropic table, load + unload (2 steps)"),
    "hex8_kinematic": (1e-2, "C3D8, linear kinematic, tension/unload/compression (3 steps)"),
    "hex8_iso_pressure": (1e-2, "C3D8, isotropic table, pressure, automatic increments, unload (OP=NEW)"),
    "quad8_pe_hole": (1e-2, "CPE8 plane strain, plate with a hole (curved edges), isotropic table, pull + unload; "
                            "RF and S too"),
    "hex8_bracket_cycle": (1e-2, "C3D8 L-bracket, isotropic table, pull / release / pull further by prescribed "
                                 "displacement (3 steps of 5 DIRECT increments); RF too; no cutback"),
    "hex20_elastic": (1e-6, "C3D20, elastic, end force + face pressure; RF and S (27 points) too"),
    "hex20r_iso": (1e-2, "C3D20R, isotropic table, pressure (10 DIRECT increments), unload (OP=NEW); RF and S "
                         "(8 points) too"),
    "wedge6_elastic": (1e-6, "C3D6, elastic, end force + pressure on triangular (S2) and quadrilateral (S3) faces; "
                             "RF and S (2 points) too"),
    "wedge15_elastic": (1e-6, "C3D15, elastic, end force + pressure on 6-node triangles (S2) and 8-node "
                              "quadrilaterals (S3); RF and S (9 points) too"),
    "wedge6_iso": (1e-2, "C3D6 block, isotropic table, pull + shear by displacement (10 DIRECT increments), "
                         "release; RF and S too"),
    "wedge15_iso": (1e-2, "C3D15 beam, isotropic table, pressure on triangles (10 DIRECT increments), unload "
                          "(OP=NEW); RF and S (9 points) too"),
    "quad8r_pe_cantilever": (1e-6, "CPE8R plane strain cantilever, elastic, tip force + top pressure; RF and S "
                                   "(2x2 points) too"),
    "cax4_cylinder": (1e-3, "CAX4 thick-walled cylinder, internal pressure + axial ring *CLOAD; RF (CalculiX's "
                            "2-degree sector) and S too; 1e-3: CalculiX's sector of flat-faced bricks"),
    "cax8_cylinder": (1e-3, "CAX8 thick-walled cylinder, internal pressure + axial ring *CLOAD; RF and S too"),
}
# Decks that CalculiX runs with fixed (DIRECT) increments, so it takes no cutback: ductile must not
# take one either (summary.json "cutbacks").
NO_CUTBACKS = {"hex8_bracket_cycle", "wedge6_iso", "wedge15_iso", "hex8_equation_iso"}
# Block headers of CalculiX's .dat (and ductile's results.dat). CalculiX 2.11 writes "...)forset"
# for strains and "...pe)for set" for PEEQ, hence the optional blanks.
# The energy blocks (*EL PRINT ENER, ELSE, EVOL) and their totals (TOTALS=YES: "total internal
# energy", "total volume", one value, keyed ()) are read too.
HEAD = re.compile(r"^\s*(displacements|forces|stresses|strains|equivalent plastic strain|internal energy density|"
                  r"internal energy|volume|total internal energy|total volume)(?: \([^)]*\))?\s*for\s*set "
                  r"(\S+) and time\s+(\S+)")
ROW = {"displacements": (1, 3), "forces": (1, 3), "stresses": (2, 6),  # key integers, values
       "strains": (2, 6), "equivalent plastic strain": (2, 1), "internal energy density": (2, 1),
       "internal energy": (1, 1), "volume": (1, 1), "total internal energy": (0, 1), "total volume": (0, 1)}
QUANTITY = {"displacements": "U", "forces": "RF", "stresses": "S"}
FORTRAN_EXP = re.compile(r"^([-+]?\d*\.?\d*)([-+]\d{3})$")  # 0.1234567-100: Fortran drops the E


def number(text):
    """A .dat value: also Fortran's 3-digit exponents without the E (0.1234567-100)."""
    try:
        return float(text)
    except ValueError:
        m = FORTRAN_EXP.match(text)
        if not m:
            raise
        return float(m.group(1) + "e" + m.group(2))


def read_dat(path, kinds=("displacements", "forces", "stresses")):
    """[(kind, set, time, {key: values})] for every block of the given kinds (keys of ROW), in file
    order; key is the node id, or (element id, integration point) for element blocks."""
    blocks, cur, kind = [], None, None
    with open(path, errors="replace") as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                cur, kind = ({}, m.group(1)) if m.group(1) in kinds else (None, None)
                if cur is not None:
                    blocks.append((kind, m.group(2).upper(), number(m.group(3)), cur))
                continue
            parts = line.split()
            if parts and parts[-1] == "L":  # a node printed in its *TRANSFORM axes (CalculiX 2.20)
                parts = parts[:-1]
            nk, nv = ROW[kind] if cur is not None else (0, 0)
            if cur is not None and len(parts) == nk + nv and all(p.isdigit() for p in parts[:nk]):
                key = int(parts[0]) if nk == 1 else tuple(int(p) for p in parts[:nk])  # totals: ()
                try:
                    cur[key] = tuple(number(v) for v in parts[nk:])
                except ValueError:
                    cur = None
            elif cur is not None and parts:
                cur = None
    return blocks


def axisym_elements(path):
    """The ids of the deck's axisymmetric elements (*ELEMENT, TYPE=CAX4/CAX8/CAX8R; the deck
    itself, not its *INCLUDEs)."""
    ids, cax, more = set(), False, False
    with open(path, errors="replace") as f:
        for line in f:
            s = line.strip()
            if s.startswith("**") or not s:
                continue
            if s.startswith("*"):
                head = s.replace(" ", "").upper()
                cax = head.startswith("*ELEMENT,") and re.search(r",TYPE=CAX", head) is not None
                more = False
                continue
            if cax and not more and s.split(",")[0].strip().isdigit():
                ids.add(int(s.split(",")[0]))
            more = s.endswith(",")
    return ids


def drop_sector_shears(blocks, elems):
    """CalculiX expands an axisymmetric element into a sector of 3D elements and prints their
    points' stresses (strains) in the global axes: the points off the sector's mid-plane have
    sxz = (s_hoop - s_radial) sin t cos t (t their angle, under a degree), which the ring does not
    have. Those two shears (sxz, syz) of elems' rows are set to 0 in CalculiX's blocks, in place,
    so that the rest is compared."""
    if not elems:
        return
    for kind, _, _, b in blocks:
        if kind in ("stresses", "strains"):
            for k, v in b.items():
                if k[0] in elems and len(v) == 6:
                    b[k] = v[:4] + (0.0, 0.0)


def step_ends(blocks):
    """{step: {(kind, set): block}}: the last block of each kind and set at each whole time 1, 2,
    ... (the end of each step of period 1)."""
    ends = {}
    for kind, name, t, b in blocks:
        if abs(t - round(t)) < 1e-6 and round(t) >= 1:
            ends.setdefault(int(round(t)), {})[kind, name] = b
    return ends


def point_map(a, b):
    """ductile's key for each of CalculiX's stress keys (element, point): CalculiX's expanded 2D
    elements have 2 or 3 layers of ductile's points (see the top). None if the counts disagree."""
    na, nb = {}, {}
    for e, _ in a:
        na[e] = na.get(e, 0) + 1
    for e, _ in b:
        nb[e] = nb.get(e, 0) + 1
    if any(e not in na or nb[e] % na[e] for e in nb):
        return None
    return {(e, q): (e, (q - 1) % na[e] + 1) for e, q in b}


def compare(a, b, scale, keys=None):
    """Largest |a - b| / scale over b's keys and components (b's key k is a's keys[k]), and the
    keys of b missing in a."""
    keys = keys or {k: k for k in b}
    missing = [k for k in b if keys[k] not in a]
    diff = max((abs(a[keys[k]][c] - b[k][c]) for k in b if keys[k] in a for c in range(len(b[k]))), default=0.0)
    return (diff / scale if scale > 0 else diff), missing


def run(cmd, cwd, env=None, timeout=120):
    t0 = time.time()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, time.time() - t0


def one(name, args, work):
    tol, what = DECKS[name]
    d = os.path.join(work, name)
    os.makedirs(d)
    shutil.copy(os.path.join(HERE, "decks", name + ".inp"), d)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    rc, out, t_ccx = run([args.ccx, "-i", name], d, env)
    if rc != 0 or not os.path.exists(os.path.join(d, name + ".dat")):
        return {"name": name, "fail": "ccx failed (rc %d): %s" % (rc, out[-500:])}
    rc, out, t_dt = run([args.solver, name + ".inp", "-o", "out", "--backend", args.backend, "--quiet"], d, env)
    if rc != 0:
        return {"name": name, "fail": "ductile-solve failed (rc %d): %s" % (rc, out[-800:])}
    if name in NO_CUTBACKS:
        with open(os.path.join(d, "out", "summary.json")) as f:
            cutbacks = json.load(f)["cutbacks"]
        if cutbacks:
            return {"name": name, "fail": "ductile cut back %d times where CalculiX needs no cutback" % cutbacks}
    ref_blocks = read_dat(os.path.join(d, name + ".dat"))
    drop_sector_shears(ref_blocks, axisym_elements(os.path.join(d, name + ".inp")))
    ref = step_ends(ref_blocks)
    got = step_ends(read_dat(os.path.join(d, "out", "results.dat")))
    if not ref or sorted(ref) != sorted(got):
        return {"name": name, "fail": "step ends differ: ccx %s, ductile %s" % (sorted(ref), sorted(got))}
    for s in sorted(ref):
        if not any(k[0] == "displacements" for k in ref[s]):
            return {"name": name, "fail": "ccx printed no displacements at the end of step %d" % s}
        for k in ref[s]:
            if k not in got[s]:
                return {"name": name,
                        "fail": "ductile printed no %s for set %s at the end of step %d" % (k[0], k[1], s)}
    errs, other = [], {}
    for kind in ("displacements", "forces", "stresses"):
        blocks = [(s, k, b) for s in sorted(ref) for k, b in ref[s].items() if k[0] == kind]
        if not blocks:
            continue
        scale = max(abs(v) for _, _, b in blocks for u in b.values() for v in u)
        per_step = {}
        for s, k, b in blocks:
            keys = point_map(got[s][k], b) if kind == "stresses" else None
            if kind == "stresses" and keys is None:
                return {"name": name, "fail": "stresses of set %s, step %d: an element missing in ductile's, or "
                        "ccx's points per element not a multiple of ductile's" % (k[1], s)}
            e, missing = compare(got[s][k], b, scale, keys)
            if missing:
                return {"name": name, "fail": "ductile printed no %s for set %s, items %s" % (kind, k[1], missing[:5])}
            per_step[s] = max(per_step.get(s, 0.0), e)
        if kind == "displacements":
            errs, umax = [per_step[s] for s in sorted(per_step)], scale
        else:
            other[QUANTITY[kind]] = (max(per_step.values()), scale)
    err = max(errs + [e for e, _ in other.values()])
    nodes = max(len(b) for k, b in ref[min(ref)].items() if k[0] == "displacements")
    return {"name": name, "tol": tol, "what": what, "errs": errs, "err": err, "umax": umax, "other": other,
            "nodes": nodes, "t_ccx": t_ccx, "t_dt": t_dt}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--ccx", default="ccx")
    ap.add_argument("--backend", default=os.environ.get("DUCTILE_BACKEND", "cpu"))
    ap.add_argument("--table")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("decks", nargs="*")
    args = ap.parse_args()
    args.solver = os.path.abspath(args.solver)
    if shutil.which(args.ccx) is None:
        print("FAIL: CalculiX (%s) is not on PATH: install calculix-ccx (scripts/setup-debian.sh)" % args.ccx)
        return 1
    names = args.decks or list(DECKS)
    work = tempfile.mkdtemp(prefix="ccx_compare_")
    rows, failed = [], False
    try:
        for n in names:
            rows.append(one(n, args, work))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept", work)
    lines = ["| deck | covers | nodes | steps | max \\|u\\| | error per step | RF, S: error (scale) | max error "
             "| tolerance | result |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "fail" in r:
            failed = True
            lines.append("| %s | | | | | | | | | FAIL: %s |" % (r["name"], r["fail"].replace("\n", " ")[:300]))
            continue
        ok = r["err"] <= r["tol"]
        failed |= not ok
        other = ", ".join("%s %.1e (%.4g)" % (q, e, sc) for q, (e, sc) in sorted(r["other"].items())) or "-"
        lines.append("| %s | %s | %d | %d | %.4g | %s | %s | %.2e | %.0e | %s |" % (
            r["name"], r["what"], r["nodes"], len(r["errs"]), r["umax"], ", ".join("%.1e" % e for e in r["errs"]),
            other, r["err"], r["tol"], "ok" if ok else "FAIL"))
    table = "\n".join(lines)
    print(table)
    if args.table:
        with open(args.table, "w") as f:
            f.write(table + "\n")
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
