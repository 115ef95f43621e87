#!/usr/bin/env python3
"""Cross-validation against CalculiX: ductile-solve and ccx solve the same decks
(tests/interop/decks/*.inp) and their nodal displacements are compared.

For every deck both solvers print the displacements of all nodes (*NODE PRINT, NSET=NALL) at
every increment; the last block of each step is compared. The error of a step is
    max over nodes and components |u_ductile - u_ccx| / max |u_ccx|,
with max |u_ccx| taken over all the deck's steps (an unloaded step's own maximum would inflate
its error), and the deck's error is the largest over its steps. Tolerances: 1e-6 for elastic decks, 1e-2
(1 %) for elastoplastic ones. Writes the table (Markdown) to --table and stdout; exits 1 if a
tolerance is exceeded or a solver is missing or fails (ccx must be on PATH: CI installs
Debian's calculix-ccx).

    ccx_compare.py --solver build/solver/ductile-solve [--ccx ccx] [--table out.md] [deck ...]
"""
import argparse
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
    "tet10_elastic": (1e-6, "C3D10, elastic, prescribed displacement + gravity"),
    "quad4_pe_elastic": (1e-6, "CPE4 plane strain, elastic, edge pressure"),
    "quad4_pe_iso": (1e-2, "CPE4 plane strain, isotropic table, load + unload (2 steps)"),
    "hex8_kinematic": (1e-2, "C3D8, linear kinematic, tension/unload/compression (3 steps)"),
    "hex8_iso_pressure": (1e-2, "C3D8, isotropic table, pressure, automatic increments, unload (OP=NEW)"),
}
HEAD = re.compile(r"^\s*displacements \(vx,vy,vz\) for set (\S+) and time\s+(\S+)")


def read_dat(path):
    """[(time, {node: (ux, uy, uz)})] for every displacement block, in file order."""
    blocks, cur = [], None
    with open(path) as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                cur = {}
                blocks.append((float(m.group(2)), cur))
                continue
            parts = line.split()
            if cur is not None and len(parts) == 4 and parts[0].isdigit():
                cur[int(parts[0])] = tuple(float(v) for v in parts[1:])
            elif cur is not None and parts and not parts[0].isdigit():
                cur = None
    return blocks


def step_ends(blocks):
    """The last block at each whole time 1, 2, ... (the end of each step of period 1)."""
    ends = {}
    for t, b in blocks:
        if abs(t - round(t)) < 1e-6 and round(t) >= 1:
            ends[int(round(t))] = b
    return ends


def compare(a, b, scale):
    diff = max((abs(a[n][k] - b[n][k]) for n in b for k in range(3)), default=0.0)
    missing = [n for n in b if n not in a]
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
    ref = step_ends(read_dat(os.path.join(d, name + ".dat")))
    got = step_ends(read_dat(os.path.join(d, "out", "results.dat")))
    if not ref or sorted(ref) != sorted(got):
        return {"name": name, "fail": "step ends differ: ccx %s, ductile %s" % (sorted(ref), sorted(got))}
    errs = []
    umax = max(abs(v) for b in ref.values() for u in b.values() for v in u)
    for s in sorted(ref):
        e, missing = compare(got[s], ref[s], umax)
        if missing:
            return {"name": name, "fail": "ductile printed no displacement for nodes %s" % missing[:5]}
        errs.append(e)
    return {"name": name, "tol": tol, "what": what, "errs": errs, "err": max(errs), "umax": umax,
            "nodes": len(ref[min(ref)]), "t_ccx": t_ccx, "t_dt": t_dt}


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
    lines = ["| deck | covers | nodes | steps | max \\|u\\| | error per step | max error | tolerance | result |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "fail" in r:
            failed = True
            lines.append("| %s | | | | | | | | FAIL: %s |" % (r["name"], r["fail"].replace("\n", " ")[:300]))
            continue
        ok = r["err"] <= r["tol"]
        failed |= not ok
        lines.append("| %s | %s | %d | %d | %.4g | %s | %.2e | %.0e | %s |" % (
            r["name"], r["what"], r["nodes"], len(r["errs"]), r["umax"], ", ".join("%.1e" % e for e in r["errs"]),
            r["err"], r["tol"], "ok" if ok else "FAIL"))
    table = "\n".join(lines)
    print(table)
    if args.table:
        with open(args.table, "w") as f:
            f.write(table + "\n")
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
