#!/usr/bin/env python3
"""Result files of `ductile-solve MESH.msh --job JOB.json` on order-P hexahedra
(solver/highorder/ho_job_output.c, ho_vtu.h), read back with the tests' VTU reader
(tests/validation/vlib.py, read_vtu).

The cantilever of data/ho_cantilever.geo (8 x 2 x 2 hexahedra, [0,4] x [0,1]^2, clamped on
"root", the tip displaced by -0.05 in y, J2: plastic at the root), meshed by gmsh at test time
(exit 77 without gmsh):

  - P = 2: summary.json's files name history.csv (4 rows), results.pvd and the 4 VTUs, which
    exist and which results.pvd lists with their load factors; increment 4's VTU has 32 cells
    of type 72 (VTK_LAGRANGE_HEXAHEDRON) with 27 distinct nodes each at offsets 27 (e + 1), in
    VTK's order: right-handed corners, each edge's node the midpoint of its VTK corners (edges
    10 = (2,6) and 11 = (3,7)), each face's node the mean of its 4 corners, the body node the
    mean of all 8 (the box is straight-sided; 1e-12); U's extrema per component equal the
    summary's u_min / u_max exactly and the mean over the tip nodes its U_mean (1e-12
    relative); RF summed over the root nodes equals the summary's root RF (1e-9 relative); PEEQ
    is exactly 0 at the nodes of the elastic quarter (x >= 3), positive at the root and within
    the extrapolation bound (the Lebesgue constant cubed, 2.33^3, times the Gauss points' max);
  - P = 1 (--order 1) against the hex8 path on the same order-1 file: the same points (matched
    by coordinates, 1e-12) and U within 1e-12 of max |u| (two solvers, PCG to 1e-12: measured
    3e-16);
  - output {"every": 3, "fields": ["U", "PEEQ"]}: the VTUs of increments 3 and 4 only, with U
    and PEEQ only; {"vtu": false}: none, files.vtu empty, files.collection null;
  - output.frd, output.points and output.monitors are refused by name.

Usage: ho_job_vtu.py --solver ductile-solve --data DIR --work DIR
"""
import argparse
import copy
import json
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
import vlib  # noqa: E402

# ho_gmsh_job.py's cantilever job, its check() and failure list, and its gmsh call, with the
# tip displaced as in its "displaced" case.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ho_gmsh_job  # noqa: E402
from ho_gmsh_job import check, failures  # noqa: E402

JOB = copy.deepcopy(ho_gmsh_job.JOB)
JOB["steps"][0]["boundary"].append({"node_set": "tip", "displacement": {"y": -0.05}})
# VTK's corners of each edge and face (vtkHigherOrderInterpolation.cxx), in its node order.
EDGES = [(0, 1), (1, 2), (3, 2), (0, 3), (4, 5), (5, 6), (7, 6), (4, 7), (0, 4), (1, 5), (2, 6),
         (3, 7)]
FACES = [(0, 3, 7, 4), (1, 2, 6, 5), (0, 1, 5, 4), (3, 2, 6, 7), (0, 1, 2, 3), (4, 5, 6, 7)]

def solve(args, msh, job, name, extra=()):
    path = os.path.join(args.work, name + ".json")
    with open(path, "w") as f:
        json.dump(job, f)
    out = os.path.join(args.work, "out_" + name)
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([args.solver, msh, "--job", path, "-o", out, "-q", *extra],
                       capture_output=True, text=True)
    return p, out


def run(args, msh, job, name, extra=()):
    p, out = solve(args, msh, job, name, extra)
    check(p.returncode == 0, "%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()))
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f), out


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def mean(pts):
    return [sum(p[d] for p in pts) / len(pts) for d in range(3)]


def close3(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def check_cells(v, n_cells):
    """Cell count, type, offsets, and VTK's node order on the straight-sided box."""
    c, x = v["cells"], v["points"]
    check(len(c["types"]) == n_cells and set(c["types"]) == {72}, "types %s" % set(c["types"]))
    check(c["offsets"] == [27 * (e + 1) for e in range(n_cells)], "offsets")
    for e in range(n_cells):
        ids = c["connectivity"][27 * e:27 * e + 27]
        check(len(set(ids)) == 27 and min(ids) >= 0 and max(ids) < len(x), "cell %d ids" % e)
        p = [x[i] for i in ids]
        a, b, d = sub(p[1], p[0]), sub(p[3], p[0]), sub(p[4], p[0])
        vol = (a[1] * b[2] - a[2] * b[1]) * d[0] + (a[2] * b[0] - a[0] * b[2]) * d[1] + \
            (a[0] * b[1] - a[1] * b[0]) * d[2]
        check(vol > 0, "cell %d: corners not right-handed" % e)
        for k, (i, j) in enumerate(EDGES):
            check(close3(p[8 + k], mean([p[i], p[j]]), 1e-12), "cell %d edge %d" % (e, k))
        for k, f in enumerate(FACES):
            check(close3(p[20 + k], mean([p[i] for i in f]), 1e-12), "cell %d face %d" % (e, k))
        check(close3(p[26], mean(p[:8]), 1e-12), "cell %d body node" % e)


def check_fields(v, s):
    """U against the summary's extrema and tip mean, RF against its root reaction, PEEQ."""
    x, u = v["points"], v["point"]["U"]
    for d in range(3):
        check(min(w[d] for w in u) == s["u_min"][d] and max(w[d] for w in u) == s["u_max"][d],
              "U extrema, component %d" % d)
    check(abs(max(math.sqrt(sum(c * c for c in w)) for w in u) - s["max_u"]) <= 1e-14 * s["max_u"],
          "max |U|")
    tip = [w for p, w in zip(x, u) if p[0] == 4.0]
    want = s["node_sets"]["tip"]["U_mean"]
    check(len(tip) == s["node_sets"]["tip"]["n_nodes"] and
          close3(mean(tip), want, 1e-12 * max(abs(c) for c in want)), "tip U_mean %s / %s"
          % (mean(tip), want))
    rf = [sum(w[d] for p, w in zip(x, v["point"]["RF"]) if p[0] == 0.0) for d in range(3)]
    want = s["node_sets"]["root"]["RF"]
    check(close3(rf, want, 1e-9 * max(abs(c) for c in want)), "root RF %s / %s" % (rf, want))
    peeq = [w[0] for w in v["point"]["PEEQ"]]
    bound = (7.0 / 3.0) ** 3 * s["max_peeq"]  # sum_q |l_q(1)| = 7/3 for 3 Gauss points
    check(all(w == 0.0 for p, w in zip(x, peeq) if p[0] >= 3.0), "PEEQ in the elastic quarter")
    check(0 < max(peeq) <= bound and min(peeq) >= -bound, "PEEQ %g..%g, Gauss max %g"
          % (min(peeq), max(peeq), s["max_peeq"]))
    print("P = 2: U extrema and tip mean = summary.json, root RF %.12g, nodal PEEQ %.6g..%.6g "
          "(Gauss points' max %.6g)" % (rf[1], min(peeq), max(peeq), s["max_peeq"]))


def order2(args, c2):
    s, out = run(args, c2, JOB, "p2")
    names = ["increment_%04d.vtu" % k for k in range(1, 5)]
    f = s.get("files", {})
    check(f.get("vtu") == names and f.get("collection") == "results.pvd" and
          f.get("history") == "history.csv" and f.get("frd") is None, "files %s" % f)
    with open(os.path.join(out, "history.csv")) as h:
        check(len(h.read().splitlines()) == 5, "history.csv rows")
    with open(os.path.join(out, "results.pvd")) as p:
        pvd = p.read()
    for k, n in enumerate(names):
        check(os.path.exists(os.path.join(out, n)) and
              ('timestep="%g"' % ((k + 1) / 4) in pvd) and n in pvd, "%s listed" % n)
    v = vlib.read_vtu(os.path.join(out, names[-1]))
    check(v["field"].get("INCREMENT") == 4 and v["field"].get("TIME") == 1.0, "field data")
    check(len(v["points"]) == s["nodes"], "%d points, %d nodes" % (len(v["points"]), s["nodes"]))
    check(sorted(v["point"]) == ["E", "MISES", "PEEQ", "RF", "S", "U"], "point data %s"
          % sorted(v["point"]))
    check_cells(v, s["elements"])
    check_fields(v, s)


def order1(args, c1):
    """P = 1 against the hex8 path on the same file."""
    s1, o1 = run(args, c1, JOB, "p1", ["--order", "1"])
    s8, o8 = run(args, c1, JOB, "hex8", ["--backend", "cpu"])
    a = vlib.read_vtu(os.path.join(o1, "increment_0004.vtu"))
    b = vlib.read_vtu(os.path.join(o8, "increment_0004.vtu"))
    key = {tuple(round(c, 9) for c in p): i for i, p in enumerate(b["points"])}
    check(len(a["points"]) == len(b["points"]) == len(key), "point counts")
    err = pos = 0.0
    for i, p in enumerate(a["points"]):
        j = key.get(tuple(round(c, 9) for c in p))
        if j is None:
            check(False, "P = 1 point %s is no hex8 point" % (p,))
            return
        pos = max(pos, max(abs(x - y) for x, y in zip(p, b["points"][j])))
        err = max(err, max(abs(x - y) for x, y in zip(a["point"]["U"][i], b["point"]["U"][j])))
    check(pos <= 1e-12, "positions differ by %g" % pos)
    check(err <= 1e-12 * s8["max_u"], "U differs by %g (max |u| %g)" % (err, s8["max_u"]))
    print("P = 1 vs hex8: positions equal to %.1e, U to %.2e of max |u|" % (pos, err / s8["max_u"]))


def output_keys(args, c2):
    job = copy.deepcopy(JOB)
    job["output"] = {"every": 3, "fields": ["U", "PEEQ"]}
    s, out = run(args, c2, job, "every3")
    check(s["files"]["vtu"] == ["increment_0003.vtu", "increment_0004.vtu"], "every 3: %s"
          % s["files"]["vtu"])
    check(sorted(os.listdir(out)) == ["history.csv", "increment_0003.vtu", "increment_0004.vtu",
                                      "results.pvd", "summary.json"], sorted(os.listdir(out)))
    v = vlib.read_vtu(os.path.join(out, "increment_0003.vtu"))
    check(sorted(v["point"]) == ["PEEQ", "U"], "fields U, PEEQ: %s" % sorted(v["point"]))
    job["output"] = {"vtu": False}
    s, out = run(args, c2, job, "novtu")
    check(s["files"]["vtu"] == [] and s["files"]["collection"] is None, "vtu false: %s"
          % s["files"])
    check(sorted(os.listdir(out)) == ["history.csv", "summary.json"], sorted(os.listdir(out)))
    for key, value in (("frd", True), ("points", True), ("monitors", [])):
        job["output"] = {key: value}
        p, _ = solve(args, c2, job, "refuse_" + key)
        want = 'output.%s: "%s" is not supported on an order-P mesh' % (key, key)
        check(p.returncode == 1 and want in p.stderr, "%s: exit %d: %s" % (key, p.returncode,
                                                                          p.stderr.strip()))
    print("output keys: every 3 writes increments 3 and 4, fields U and PEEQ only; vtu false "
          "none; frd, points, monitors refused")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    if shutil.which("gmsh") is None:
        print("gmsh is not on PATH: skipped")
        return 77
    os.makedirs(args.work, exist_ok=True)
    c1 = ho_gmsh_job.gmsh(args, args.data, args.work, "cantilever_p1", 1)
    c2 = ho_gmsh_job.gmsh(args, args.data, args.work, "cantilever_p2", 2)
    order2(args, c2)
    order1(args, c1)
    output_keys(args, c2)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
