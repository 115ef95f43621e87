"""The hex20 elastoplastic path against hex8 per DOF, on cubes of comparable DOF counts.

A steel cube (side 100 mm, E 210000 MPa, nu 0.3, J2 with yield 250 MPa and linear hardening
to 450 MPa at a plastic strain of 0.2) on three symmetry planes, a punch pressed 1 mm into a
quarter of its top face (the nodes with x, y <= 50 mm) in four increments: plasticity spreads
from the punch's edges. The same deck with C3D8 (N^3 elements), C3D20R and C3D20 (M^3
elements, M chosen so that the DOF counts match within a few per cent). Printed per element:
DOFs, increments and cutbacks, Newton and PCG iterations, the analysis time (ductile's summary: setup,
assembly, stress, solver, output), its time per DOF and the ratio to hex8's; with --out, the
result JSON (suite "hex20").

    python3 bench/elements/hex20_cube.py --solver build/rel/solver/ductile-solve
        [--backend cuda|cpu] [--n8 60] [--n20 38] [--threads T] [--precond P]
        [--cuda-elements auto|simple] [--elements C3D8,C3D20R,C3D20] [--load punch|kiran]
        [--out FILE] [--keep DIR]

--load kiran loads the cube as Kiran's benchmark instead (ductile-bench's load: the bottom
fixed, 800 MPa tension on the top in one increment, 99 % of the points plastic), which has no
stress singularity whose resolution grows with the mesh, so the Newton count is the element's
alone. --precond passes ductile-solve's preconditioner (default: auto); --cuda-elements simple runs
the one-thread-per-element kernels on the GPU (the path every hex20 mesh took before the
cooperative hex20 kernels), to compare the two in one run.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import common  # noqa: E402

SIDE, PUNCH = 100.0, 1.0

# C3D20's nodes in a cell of doubled coordinates (0..2 per axis): corners 1-8, mid-edges
# 9-12 (bottom), 13-16 (top), 17-20 (vertical), Abaqus/CalculiX order.
HEX20 = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (2, 0, 2), (2, 2, 2), (0, 2, 2),
         (1, 0, 0), (2, 1, 0), (1, 2, 0), (0, 1, 0), (1, 0, 2), (2, 1, 2), (1, 2, 2), (0, 1, 2),
         (0, 0, 1), (2, 0, 1), (2, 2, 1), (0, 2, 1)]


def write_deck(path, n, etype, load="punch"):
    """The cube as a CalculiX deck: n^3 elements of etype (C3D8, C3D20R, C3D20), loaded by the
    punch or as Kiran's cube (load "kiran")."""
    quad = etype != "C3D8"
    g = 2 * n + 1 if quad else n + 1  # grid points per axis (doubled for hex20)
    h = SIDE / (g - 1)
    ids = {}
    lines = ["*HEADING", "cube %s %d^3, punch on a quarter of the top" % (etype, n), "*NODE"]
    for k in range(g):
        for j in range(g):
            for i in range(g):
                if quad and (i % 2) + (j % 2) + (k % 2) > 1:
                    continue  # serendipity: no face or cell centres
                ids[(i, j, k)] = len(ids) + 1
                lines.append("%d, %.9g, %.9g, %.9g" % (ids[(i, j, k)], i * h, j * h, k * h))
    lines.append("*ELEMENT, TYPE=%s, ELSET=EALL" % etype)
    e = 0
    for k in range(n):
        for j in range(n):
            for i in range(n):
                e += 1
                if quad:
                    nodes = [ids[(2 * i + a, 2 * j + b, 2 * k + c)] for a, b, c in HEX20]
                    lines.append("%d, %s," % (e, ", ".join(map(str, nodes[:15]))))
                    lines.append(", ".join(map(str, nodes[15:])))
                else:
                    cell = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0),
                            (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
                    lines.append("%d, %s" % (e, ", ".join(str(ids[(i + a, j + b, k + c)])
                                                           for a, b, c in cell)))

    def nset(name, pick):
        lines.append("*NSET, NSET=%s" % name)
        sel = [str(v) for p, v in ids.items() if pick(*p)]
        for s in range(0, len(sel), 16):
            lines.append(", ".join(sel[s:s + 16]))
        return len(sel)

    last = g - 1
    if load == "kiran":
        # Kiran's cube (ductile-bench): the bottom fixed, 800 MPa tension on the top face in one
        # increment, E 200 GPa, nu 0.3, yield 450 MPa, linear hardening 66 GPa; the top layer's
        # face 2 (nodes 5-8: z = side) carries the pressure, negative for tension
        nset("BOTTOM", lambda i, j, k: k == 0)
        top = [str(e + 1) for e in range(n * n * (n - 1), n ** 3)]
        lines.append("*ELSET, ELSET=ETOP")
        for s0 in range(0, len(top), 16):
            lines.append(", ".join(top[s0:s0 + 16]))
        lines += ["*MATERIAL, NAME=KIRAN", "*ELASTIC", "200000., 0.3", "*PLASTIC", "450., 0.",
                  "66450., 1.0", "*SOLID SECTION, ELSET=EALL, MATERIAL=KIRAN",
                  "*BOUNDARY", "BOTTOM, 1, 3",
                  "*STEP", "*STATIC", "1.0, 1.0", "*DLOAD", "ETOP, P2, -800.", "*END STEP"]
    else:
        nset("XSYM", lambda i, j, k: i == 0)
        nset("YSYM", lambda i, j, k: j == 0)
        nset("ZSYM", lambda i, j, k: k == 0)
        nset("PUNCH", lambda i, j, k: k == last and 2 * i <= last and 2 * j <= last)
        lines += ["*MATERIAL, NAME=STEEL", "*ELASTIC", "210000., 0.3", "*PLASTIC", "250., 0.",
                  "450., 0.2", "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL",
                  "*BOUNDARY", "XSYM, 1, 1", "YSYM, 2, 2", "ZSYM, 3, 3",
                  "*STEP", "*STATIC", "0.25, 1.0, 1e-05, 0.25",
                  "*BOUNDARY", "PUNCH, 3, 3, %g" % -PUNCH, "*END STEP"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 3 * len(ids)


def run(solver, d, etype, n, backend, threads, limit, extra, load):
    name = etype.lower()
    dofs = write_deck(os.path.join(d, name + ".inp"), n, etype, load)
    out = os.path.join(d, "out_" + name)
    cmd = [solver, name + ".inp", "-o", out, "--backend", backend, "--quiet"]
    if backend == "cpu" and threads:
        cmd += ["--threads", str(threads)]
    cmd += extra
    r = common.run_child(cmd, d, os.path.join(d, name + ".log"), limit=limit)
    rec = {"element": etype, "n": n, "dofs": dofs, "rc": r["rc"], "wall_seconds": r["wall_seconds"],
           "peak_rss_mb": r["peak_rss_mb"], "command": " ".join([os.path.basename(solver)] + cmd[1:])}
    try:
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        rec["status"] = "failed"
        return rec
    t = s["timings"]
    rec.update({"status": "completed" if s["completed"] else "failed",
                "increments": s["n_increments"], "cutbacks": s["cutbacks"],
                "newton_iterations": s["newton_iterations"], "pcg_iterations": s["pcg_iterations"],
                "analysis_seconds": t["total"],
                "phases": {k: t[k] for k in ("setup", "assembly", "stress", "solver", "output")},
                "max_peeq": s.get("max_peeq")})
    rec["us_per_dof"] = 1e6 * t["total"] / dofs
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solver", required=True)
    ap.add_argument("--backend", default="cuda", choices=("cuda", "cpu"))
    ap.add_argument("--n8", type=int, default=60, help="hex8 elements per side (default 60)")
    ap.add_argument("--n20", type=int, default=38, help="hex20 elements per side (default 38)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--precond", help="ductile-solve --precond (default: auto)")
    ap.add_argument("--load", default="punch", choices=("punch", "kiran"),
                    help="the punch (default) or Kiran's cube: 800 MPa on the top, bottom fixed")
    ap.add_argument("--cuda-elements", choices=("auto", "simple"))
    ap.add_argument("--elements", default="C3D8,C3D20R,C3D20",
                    help="which of C3D8, C3D20R, C3D20 to run (C3D8 first: the ratios' base)")
    ap.add_argument("--out")
    ap.add_argument("--keep")
    a = ap.parse_args()
    started = common.utc_now()
    d = a.keep or tempfile.mkdtemp(prefix="hex20_cube_")
    os.makedirs(d, exist_ok=True)
    solver = os.path.abspath(a.solver)
    print("%-7s %5s %9s %11s %7s %8s %9s %8s %7s %s" % (
        "element", "n", "DOFs", "incs (cut)", "Newton", "PCG", "analysis", "us/DOF", "vs hex8",
        "solver/asm/stress s"), flush=True)
    extra = (["--precond", a.precond] if a.precond else []) + \
        (["--cuda-elements", a.cuda_elements] if a.cuda_elements else [])
    wanted = a.elements.split(",")
    runs = []
    for etype, n in (("C3D8", a.n8), ("C3D20R", a.n20), ("C3D20", a.n20)):
        if etype not in wanted:
            continue
        r = run(solver, d, etype, n, a.backend, a.threads, a.limit, extra, a.load)
        runs.append(r)
        base = runs[0].get("us_per_dof") if runs[0]["element"] == "C3D8" else None
        if r.get("status") != "completed":
            print("%-7s %5d %9d  failed (rc %s)" % (r["element"], r["n"], r["dofs"], r["rc"]), flush=True)
            continue
        ph = r["phases"]
        r["ratio_to_hex8"] = r["us_per_dof"] / base if base else None
        print("%-7s %5d %9d %6d (%2d) %7d %8d %9.3f %8.3f %7s %.3f/%.3f/%.3f" % (
            r["element"], r["n"], r["dofs"], r["increments"], r["cutbacks"], r["newton_iterations"],
            r["pcg_iterations"], r["analysis_seconds"], r["us_per_dof"],
            "%.2fx" % r["ratio_to_hex8"] if base else "-", ph["solver"], ph["assembly"], ph["stress"]),
            flush=True)
    if a.out:
        h = common.host()
        common.write_result(a.out, "hex20", sys.argv, runs, h, started,
                            {"backend": a.backend, "load": a.load, "precond": a.precond or "auto",
                             "cuda_elements": a.cuda_elements or "auto"})
        print("result:", a.out)
    if not a.keep:
        shutil.rmtree(d, ignore_errors=True)
    return 0 if all(r.get("status") == "completed" for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
