#!/usr/bin/env python3
"""ductile's .frd against CalculiX's: ccx and ductile-solve run the same decks with *NODE FILE U, RF
and *EL FILE S, E, PEEQ, and the two .frd files are read by the small parser below and compared.

Asserted, per deck:
- the node block (2C): the same node ids and coordinates; the element block (3C): the same
  element ids, cgx type numbers and node lists (CalculiX's node order), group 0;
- the result sets: the same sequence of (step, increment of the step, time, 100CL number, node
  count) and, in each, the blocks CalculiX writes (DISP, STRESS, TOSTRAIN, FORC, PE) except
  ERROR, CalculiX's stress error estimate, which ductile does not compute; no other block;
- the values: for each block name, err = max over sets, nodes and components of
      max(0, |ductile - ccx| - one unit in the 6th significant digit of the larger) / max |ccx|,
  the maximum taken over the deck's sets (the file has six significant digits, so two solvers
  that agree to 1e-9 still differ by one unit where a value lies near a rounding boundary).
  Tolerances: DISP and FORC 1e-6 (elastic decks) and 1e-5 (elastoplastic ones: Newton's
  tolerances); STRESS, TOSTRAIN and PE, extrapolated to the nodes and averaged, 3e-4: ductile's
  extrapolation matrices are exact, CalculiX's tables hold them rounded to 3-5 decimals (C3D8's
  2.549, -0.683, 0.183, -0.049), which moves a nodal value by up to about 1.6e-4 of the element's
  largest point value;
- summary.json names the file (files.frd); on the deck large enough to time (the "box" deck:
  2,025 nodes, 4 increments; named on the command line, ctest interop_frd_timing, left out of
  the sanitizer pass) its timings.output, the time the solver's thread spends on output
  (snapshots, and waiting for the writer thread), stays below 10 % of the run, since the .frd
  is formatted by the writer thread while the next increment solves.

Where CalculiX GraphiX is on PATH (Debian's calculix-cgx; not in CI), cgx -bg also reads both
files: it must reach the closing record of ductile's and find as many data sets in it as in
ccx's less ccx's ERROR blocks.

The decks are tests/interop/decks/*.inp (ccx_compare.py's) with the file requests added before
each *END STEP, and three generated here: C3D4 and CPE3 (types the deck folder lacks) and the
timing box. CPS4 is left out: CalculiX expands it into a brick layer, which is stiffer than the
plane-stress element (docs/interop.md, planestress3).

    frd_compare.py --solver build/solver/ductile-solve [--ccx ccx] [--table out.md] [--keep] [deck ...]
(no deck named: every deck but the timing one)
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = "*NODE FILE\nU, RF\n*EL FILE\nS, E, PEEQ\n"
ELASTIC, PLASTIC, EXTRAPOLATED = 1e-6, 1e-5, 3e-4
DECKS = {  # name: (plastic, what it covers)
    "hex8_elastic": (False, "C3D8 elastic block: end force and pressure"),
    "hex8_iso_pressure": (True, "C3D8 isotropic hardening, automatic increments, unloading step"),
    "hex8r_elastic": (False, "C3D8R (static: one point, hourglass stiffness) elastic: end force and pressure"),
    "hex8i_elastic": (False, "C3D8I (incompatible modes, condensed) elastic: end force and pressure"),
    "hex8i_iso": (True, "C3D8I beam, isotropic hardening, pressure then unloading"),
    "hex20_elastic": (False, "C3D20 (27 points) elastic"),
    "hex20r_iso": (True, "C3D20R beam, isotropic hardening, 2 steps of DIRECT increments"),
    "tet10_elastic": (False, "C3D10 elastic, prescribed displacement and gravity"),
    "tet4_elastic": (False, "C3D4 elastic block (generated)"),
    "quad4_pe_elastic": (False, "CPE4 plane strain elastic"),
    "tri3_pe_elastic": (False, "CPE3 plane strain elastic (generated)"),
    "quad8_pe_hole": (True, "CPE8 plane strain plate with a hole, isotropic hardening, unloading"),
    "wedge6_elastic": (False, "C3D6 elastic: end force and pressure on triangles and quadrilaterals"),
    "wedge15_elastic": (False, "C3D15 elastic: end force and pressure on triangles and quadrilaterals"),
    "wedge15_iso": (True, "C3D15 beam, isotropic hardening, pressure then unloading"),
    "box": (True, "C3D8 box pulled past yield, 4 DIRECT increments (timing)"),
}
TIMED = "box"
# Wedges: the mesh, DISP and FORC are compared; their nodal STRESS, TOSTRAIN and PE are not.
# ductile interpolates a wedge's point values by the polynomials its rule determines (C3D6's
# 2 points: linear along the axis; C3D15's 9: linear in the triangle times quadratic along
# it); ccx's nodal values for C3D6 differ by 43 % from that and from the points' mean alike,
# for C3D15 by 2-15 %, while the point values agree to 1e-8 (ccx_compare, results.dat).
NOT_EXTRAPOLATED = {"wedge6_elastic", "wedge15_elastic", "wedge15_iso"}


def tet4_deck():
    """A 4 x 2 x 2 box of unit cubes, each cut into 6 tetrahedra around its diagonal 0-6 (the
    cuts of neighbouring cubes match), fixed at x = 0, pulled and bent at x = 4."""
    nx, ny, nz = 4, 2, 2
    nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)  # noqa: E731
    lines = ["*HEADING", "C3D4 block (frd_compare.py)", "*NODE, NSET=NALL"]
    lines += ["%d, %d, %d, %d" % (nid(i, j, k), i, j, k) for k in range(nz + 1) for j in range(ny + 1)
              for i in range(nx + 1)]
    lines.append("*ELEMENT, TYPE=C3D4, ELSET=EALL")
    paths = [(1, 2), (1, 4), (2, 1), (2, 4), (4, 1), (4, 2)]  # steps along x (1), y (2), z (4)
    e = 0
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                corner = lambda b: nid(i + (b & 1), j + ((b >> 1) & 1), k + ((b >> 2) & 1))  # noqa: E731
                for a, b in paths:
                    e += 1
                    c = [corner(0), corner(a), corner(a | b), corner(7)]
                    # positive volume: swap two nodes where the path turns the other way
                    if (a, b) in ((1, 4), (2, 1), (4, 2)):
                        c[1], c[2] = c[2], c[1]
                    lines.append("%d, %s" % (e, ", ".join(map(str, c))))
    lines += ["*NSET, NSET=FIX", id_lines(nid(0, j, k) for k in range(nz + 1) for j in range(ny + 1)),
              "*NSET, NSET=TIP", id_lines(nid(nx, j, k) for k in range(nz + 1) for j in range(ny + 1)),
              "*MATERIAL, NAME=STEEL", "*ELASTIC", "210000., 0.3",
              "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL",
              "*STEP", "*STATIC", "1., 1.", "*BOUNDARY", "FIX, 1, 3", "*CLOAD", "TIP, 1, 20.", "TIP, 3, -5.",
              FILES + "*END STEP"]
    return "\n".join(lines) + "\n"


def tri3_deck():
    """A 6 x 3 plate of unit squares, each cut into two CPE3 triangles, fixed at x = 0 and loaded
    at x = 6 (plane strain, thickness 0.5)."""
    nx, ny = 6, 3
    nid = lambda i, j: 1 + i + (nx + 1) * j  # noqa: E731
    lines = ["*HEADING", "CPE3 plate (frd_compare.py)", "*NODE, NSET=NALL"]
    lines += ["%d, %d, %d" % (nid(i, j), i, j) for j in range(ny + 1) for i in range(nx + 1)]
    lines.append("*ELEMENT, TYPE=CPE3, ELSET=EALL")
    e = 0
    for j in range(ny):
        for i in range(nx):
            e += 1
            lines.append("%d, %d, %d, %d" % (e, nid(i, j), nid(i + 1, j), nid(i + 1, j + 1)))
            e += 1
            lines.append("%d, %d, %d, %d" % (e, nid(i, j), nid(i + 1, j + 1), nid(i, j + 1)))
    lines += ["*NSET, NSET=FIX", id_lines(nid(0, j) for j in range(ny + 1)),
              "*NSET, NSET=TIP", id_lines(nid(nx, j) for j in range(ny + 1)),
              "*MATERIAL, NAME=STEEL", "*ELASTIC", "210000., 0.3",
              "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL", "0.5",
              "*STEP", "*STATIC", "1., 1.", "*BOUNDARY", "FIX, 1, 2", "*CLOAD", "TIP, 1, 30.", "TIP, 2, -4.",
              FILES + "*END STEP"]
    return "\n".join(lines) + "\n"


def box_deck():
    """A 24 x 8 x 8 C3D8 box, J2 with linear hardening, clamped at x = 0 and pulled at x = 24 past
    yield in 4 DIRECT increments; CalculiX's residual tolerance tightened as in the other decks."""
    nx, ny, nz = 24, 8, 8
    nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)  # noqa: E731
    lines = ["*HEADING", "C3D8 box for timing (frd_compare.py)", "*NODE, NSET=NALL"]
    lines += ["%d, %d, %d, %d" % (nid(i, j, k), i, j, k) for k in range(nz + 1) for j in range(ny + 1)
              for i in range(nx + 1)]
    lines.append("*ELEMENT, TYPE=C3D8, ELSET=EALL")
    e = 0
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                e += 1
                c = [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                     nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]
                lines.append("%d, %s" % (e, ", ".join(map(str, c))))
    lines += ["*NSET, NSET=FIX", id_lines(nid(0, j, k) for k in range(nz + 1) for j in range(ny + 1)),
              "*NSET, NSET=TIP", id_lines(nid(nx, j, k) for k in range(nz + 1) for j in range(ny + 1)),
              "*MATERIAL, NAME=STEEL", "*ELASTIC", "210000., 0.3", "*PLASTIC", "250., 0.", "300., 0.05",
              "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL",
              "*STEP", "*STATIC, DIRECT", "0.25, 1.", "*BOUNDARY", "FIX, 1, 3", "TIP, 1, 1, 0.096",
              "*CONTROLS, PARAMETERS=FIELD", "1e-9, 1e-9", FILES + "*END STEP"]
    return "\n".join(lines) + "\n"


def id_lines(ids):
    """Set data lines of 10 ids (CalculiX reads at most 16 values a line)."""
    ids = list(ids)
    return "\n".join(", ".join(map(str, ids[k:k + 10])) for k in range(0, len(ids), 10))


GENERATED = {"tet4_elastic": tet4_deck, "tri3_pe_elastic": tri3_deck, "box": box_deck}


def deck_text(name):
    if name in GENERATED:
        return GENERATED[name]()
    with open(os.path.join(HERE, "decks", name + ".inp")) as f:
        text = f.read()
    return re.sub(r"(?im)^\*END STEP", FILES.replace("\\", "\\\\") + "*END STEP", text)


def read_frd(path):
    """{'nodes': {id: (x, y, z)}, 'elements': {id: (type, group, material, [nodes])},
    'sets': [{'step', 'inc', 'time', 'number', 'nodes', 'blocks': {name: {node: values}}}]}
    from an ASCII .frd in the long format, read by the columns of the format (values are
    E12.5 fields, which need not be separated by blanks)."""
    with open(path) as f:
        lines = f.read().split("\n")
    nodes, elements, sets = {}, {}, []
    fields = lambda line, n: [float(line[13 + 12 * k:25 + 12 * k]) for k in range(n)]  # noqa: E731
    i, cur, eid, end = 0, None, None, False
    while i < len(lines):
        line = lines[i]
        if line.startswith("    2C"):
            i += 1
            while not lines[i].startswith(" -3"):
                nodes[int(lines[i][3:13])] = tuple(fields(lines[i], 3))
                i += 1
        elif line.startswith("    3C"):
            i += 1
            while not lines[i].startswith(" -3"):
                x = lines[i]
                if x.startswith(" -1"):
                    eid = int(x[3:13])
                    elements[eid] = (int(x[13:18]), int(x[18:23]), int(x[23:28]), [])
                else:
                    elements[eid][3].extend(int(x[3 + 10 * k:13 + 10 * k]) for k in range((len(x) - 3) // 10))
                i += 1
        elif line.startswith("    1PSTEP"):
            inc, step = int(line[36:48]), int(line[48:60])
            while lines[i + 1].startswith("    1P"):  # CalculiX's modal records (1PGM, 1PMODE, ...)
                i += 1
            head, attr = lines[i + 1], lines[i + 2]
            if not head.startswith("  100CL") or not attr.startswith(" -4"):
                raise ValueError("%s:%d: a 1PSTEP record without its 100CL and -4 records" % (path, i + 1))
            number, time, count = int(head[7:12]) - 100, float(head[12:24]), int(head[24:36])
            if int(head[58:63]) != number:
                raise ValueError("%s:%d: 100CL numbers %s and %s differ" % (path, i + 2, head[7:12], head[58:63]))
            name = attr[5:13].strip()
            i += 3
            comps = []
            while lines[i].startswith(" -5"):
                comps.append(lines[i][5:13].strip())
                i += 1
            nv = len([c for c in comps if c != "ALL"])
            vals, last = {}, None
            while not lines[i].startswith(" -3"):
                if lines[i].startswith(" -2"):  # a node's values beyond the first six (CalculiX's SDV)
                    vals[last].extend(fields(lines[i], (len(lines[i].rstrip()) - 13) // 12))
                else:
                    last = int(lines[i][3:13])
                    vals[last] = fields(lines[i], min(nv, 6))
                i += 1
            if cur is None or cur["number"] != number:
                cur = {"step": step, "inc": inc, "time": time, "number": number, "nodes": count, "blocks": {}}
                sets.append(cur)
            cur["blocks"][name] = vals
        elif line.strip() == "9999":
            end = True
        i += 1
    if not end:
        raise ValueError("%s: no closing 9999 record" % path)
    return {"nodes": nodes, "elements": elements, "sets": sets}


def unit6(x):
    """One unit in the 6th significant digit of |x| (the last digit E12.5 writes)."""
    return 10.0 ** (math.floor(math.log10(abs(x))) - 5) if x else 0.0


def run(cmd, cwd):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300)
    return p.returncode, p.stdout


def structure(a, b):
    """The first difference between the mesh and set headers of ductile's file a and ccx's b."""
    if sorted(a["nodes"]) != sorted(b["nodes"]):
        return "node ids differ"
    for n, x in b["nodes"].items():
        if any(abs(p - q) > unit6(max(abs(p), abs(q))) for p, q in zip(a["nodes"][n], x)):
            return "node %d at %s, ccx %s" % (n, a["nodes"][n], x)
    if sorted(a["elements"]) != sorted(b["elements"]):
        return "element ids differ"
    for e, (t, g, _, conn) in b["elements"].items():
        if a["elements"][e][0] != t or a["elements"][e][3] != conn or a["elements"][e][1] != g:
            return "element %d: type %d nodes %s, ccx type %d nodes %s" % (e, a["elements"][e][0],
                                                                           a["elements"][e][3], t, conn)
    heads = lambda f: [(s["step"], s["inc"], round(s["time"], 9), s["number"], s["nodes"]) for s in f["sets"]]  # noqa: E731
    if heads(a) != heads(b):
        return "result sets (step, increment, time, number, nodes) %s, ccx %s" % (heads(a)[:4], heads(b)[:4])
    for sa, sb in zip(a["sets"], b["sets"]):
        want = sorted(k for k in sb["blocks"] if k != "ERROR")
        if sorted(sa["blocks"]) != want:
            return "step %d increment %d: blocks %s, ccx %s" % (sa["step"], sa["inc"], sorted(sa["blocks"]), want)
    return None


def errors(a, b):
    """{block: (err, scale)} over the sets (see the top)."""
    out = {}
    for name in sorted({k for s in b["sets"] for k in s["blocks"] if k != "ERROR"}):
        pairs = [(sa["blocks"][name], sb["blocks"][name]) for sa, sb in zip(a["sets"], b["sets"])]
        scale = max((abs(v) for _, vb in pairs for x in vb.values() for v in x), default=0.0)
        worst = 0.0
        for va, vb in pairs:
            for n, x in vb.items():
                for p, q in zip(va[n], x):
                    worst = max(worst, abs(p - q) - unit6(max(abs(p), abs(q))))
        out[name] = (worst / scale if scale > 0 else worst, scale)
    return out


def cgx_datasets(path):
    """The data sets cgx -bg reads from a .frd, or None if it does not reach the closing record."""
    d = os.path.dirname(path)
    with open(os.path.join(d, "read.fbd"), "w") as f:
        f.write("read %s\nquit\n" % os.path.basename(path))
    p = subprocess.run(["cgx", "-bg", "read.fbd"], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=120)
    text = p.stdout.decode("latin-1")
    if "record: 9999" not in text:
        return None
    return len(re.findall(r"reading Dataset No:", text))


def one(name, args, work):
    plastic, what = DECKS[name]
    d = os.path.join(work, name)
    os.makedirs(d)
    with open(os.path.join(d, name + ".inp"), "w") as f:
        f.write(deck_text(name))
    rc, out = run([args.ccx, "-i", name], d)
    if rc != 0 or not os.path.exists(os.path.join(d, name + ".frd")):
        return {"name": name, "fail": "ccx failed (rc %d): %s" % (rc, out[-500:])}
    rc, out = run([args.solver, name + ".inp", "-o", "out", "--backend", args.backend, "--quiet"], d)
    if rc != 0:
        return {"name": name, "fail": "ductile-solve failed (rc %d): %s" % (rc, out[-800:])}
    with open(os.path.join(d, "out", "summary.json")) as f:
        summary = json.load(f)
    if summary["files"].get("frd") != name + ".frd":
        return {"name": name, "fail": "summary.json files.frd is %r" % summary["files"].get("frd")}
    try:
        a = read_frd(os.path.join(d, "out", name + ".frd"))
        b = read_frd(os.path.join(d, name + ".frd"))
    except (ValueError, IndexError, KeyError) as e:
        return {"name": name, "fail": "unreadable .frd: %s" % e}
    bad = structure(a, b)
    if bad:
        return {"name": name, "fail": bad}
    errs = errors(a, b)
    tols = {k: (float("inf") if name in NOT_EXTRAPOLATED else EXTRAPOLATED)
            if k in ("STRESS", "TOSTRAIN", "PE") else PLASTIC if plastic else ELASTIC for k in errs}
    if shutil.which("cgx"):
        n_errors = sum(1 for s in b["sets"] if "ERROR" in s["blocks"])
        got, want = cgx_datasets(os.path.join(d, "out", name + ".frd")), cgx_datasets(os.path.join(d, name + ".frd"))
        if got is None or want is None or got != want - n_errors:
            return {"name": name, "fail": "cgx read %s data sets of ductile's .frd, %s of ccx's (%d ERROR)" % (
                got, want, n_errors)}
    t = summary["timings"]
    share = t["output"] / t["total"] if t["total"] > 0 else 0.0
    ok = all(errs[k][0] <= tols[k] for k in errs) and (name != TIMED or share <= 0.1)
    return {"name": name, "what": what, "nodes": len(b["nodes"]), "sets": len(b["sets"]), "errs": errs,
            "tols": tols, "output": t["output"], "total": t["total"], "share": share, "ok": ok}


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
    work = tempfile.mkdtemp(prefix="frd_compare_")
    rows = []
    try:
        for n in args.decks or [d for d in DECKS if d != TIMED]:
            rows.append(one(n, args, work))
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    lines = ["| deck | covers | nodes | sets | DISP | FORC | STRESS | TOSTRAIN | PE | output / total s | result |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    failed = False
    for r in rows:
        if "fail" in r:
            failed = True
            lines.append("| %s | | | | | | | | | | FAIL: %s |" % (r["name"], r["fail"].replace("\n", " ")[:300]))
            continue
        failed |= not r["ok"]
        cell = lambda k: ("%.1e (tol %.0e)" % (r["errs"][k][0], r["tols"][k])) if k in r["errs"] else "-"  # noqa: E731
        lines.append("| %s | %s | %d | %d | %s | %s | %s | %s | %s | %.3f / %.3f | %s |" % (
            r["name"], r["what"], r["nodes"], r["sets"], cell("DISP"), cell("FORC"), cell("STRESS"),
            cell("TOSTRAIN"), cell("PE"), r["output"], r["total"], "ok" if r["ok"] else "FAIL"))
    table = "\n".join(lines)
    print(table)
    if args.table:
        with open(args.table, "w") as f:
            f.write(table + "\n")
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
