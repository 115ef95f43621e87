#!/usr/bin/env python3
"""Gmsh round trip: generate the plate with a hole (2D) and the bracket (3D) from the .geo files
of tests/interop with Gmsh in formats 4.1 and 2.2, ASCII and binary; check that all four
import to the same counts, sets and surfaces with positive Jacobians (test_gmsh_import), and
that ductile-solve completes an elastic job on each mesh (mesh.msh --job job.json).
The plate is also meshed with quadrangles only (recombined and subdivided) of order 2
(8-node serendipity and 9-node), and 3 (16-node), with nodes on the curved hole: in format
4.1 ASCII and 2.2 binary, each must import to the same model, of those elements only, and
solve. Every plate solution is checked (summary.json): the reaction on symx balances the
pressure on "load" (100 x 20: the edges' 2-, 3- and 4-node pressure loads add up), and the
displacement of "corner" agrees within 0.1 % between the higher-order meshes and within 2 %
with the linear triangles' (which differ from them by about 0.8 %).
The bracket is also meshed with 20-node hexahedra (bracket_hex.geo: extruded quadrangles of
order 2, incomplete: Gmsh's type 17 with its own mid-edge node order), in format 4.1 ASCII and
2.2 binary: each must import to the same model, of hex20 only, and solve, with full and with
reduced integration (section "formulation": "reduced", which makes them hex20r). Both balance
the pressure on "loaded" (10 x 10 x 20) by the reaction on "fixed", their mean displacements of
"loaded" agree within 1 % (they differ by about 0.25 %), and the reduced run's VTU has
VTK_QUADRATIC_HEXAHEDRON cells (type 25) whose mid-edge nodes lie at the midpoints of VTK's
edges (the bracket's faces are flat), the check of VTK's node order.
The bracket is also meshed with wedges (bracket_wedge.geo: extruded triangles; Gmsh's 6-node
prisms, type 6, and with order 2, incomplete, its 15-node prisms, type 18, whose mid-edge node
order differs from CalculiX's), in format 4.1 ASCII and 2.2 binary: each must import to the
same model, of wedge6 or wedge15 only, and solve; the reaction on "fixed" balances the pressure
on "loaded" (quadrilateral faces), and the VTU has VTK_WEDGE (13) or VTK_QUADRATIC_WEDGE (26)
cells in VTK's orientation (triangle 0-1-2's right-hand normal points away from 3-4-5: the
mirror image of CalculiX's) with, for type 26, the mid-edge nodes at the midpoints of VTK's
edges.
gmsh must be on PATH (CI installs Debian's gmsh): missing gmsh is a failure."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "validation"))
import vlib  # noqa: E402  (read_vtu)

FORMATS = [("msh41", []), ("msh41", ["-bin"]), ("msh22", []), ("msh22", ["-bin"])]
QUADS = "Mesh.RecombineAll = 1; Mesh.SubdivisionAlgorithm = 1;"
VARIANTS = [  # (name, .geo, gmsh dimension, extra options, formats, the only element type expected)
    ("plate", "plate_hole.geo", "-2", [], FORMATS, None),
    ("bracket", "bracket.geo", "-3", [], FORMATS, None),
    ("plate_quad8", "plate_hole.geo", "-2", ["-order", "2", "-string", QUADS + " Mesh.SecondOrderIncomplete = 1;"],
     [("msh41", []), ("msh22", ["-bin"])], "quad8"),
    ("plate_quad9", "plate_hole.geo", "-2", ["-order", "2", "-string", QUADS],
     [("msh41", []), ("msh22", ["-bin"])], "quad9"),
    ("plate_quad16", "plate_hole.geo", "-2", ["-order", "3", "-string", QUADS],
     [("msh41", []), ("msh22", ["-bin"])], "quad16"),
    ("bracket_hex20", "bracket_hex.geo", "-3", ["-order", "2", "-string", "Mesh.SecondOrderIncomplete = 1;"],
     [("msh41", []), ("msh22", ["-bin"])], "hex20"),
    ("bracket_wedge6", "bracket_wedge.geo", "-3", [], [("msh41", []), ("msh22", ["-bin"])], "wedge6"),
    ("bracket_wedge15", "bracket_wedge.geo", "-3", ["-order", "2", "-string", "Mesh.SecondOrderIncomplete = 1;"],
     [("msh41", []), ("msh22", ["-bin"])], "wedge15"),
]
# VTK_QUADRATIC_HEXAHEDRON: its mid-edge nodes 8..19 on these corner pairs (vtkQuadraticHexahedron).
VTK_HEX20_EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
# VTK_QUADRATIC_WEDGE: its mid-edge nodes 6..14 on these corner pairs (vtkQuadraticWedge).
VTK_WEDGE15_EDGES = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (0, 3), (1, 4), (2, 5)]
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


def check_plate(summary, name, corners):
    """The plate's equilibrium and its corner displacement against the other meshes' (corners:
    {variant: (ux, uy)}, filled here; the linear "plate" comes first)."""
    with open(summary) as f:
        sets = json.load(f)["node_sets"]
    rx, u = sets["symx"]["RF"][0], sets["corner"]["U_mean"][:2]
    ok = abs(rx + 100 * 20) <= 1e-6 * 2000
    if not ok:
        print("FAIL: %s: the reaction on symx is %.10g, not -2000 (the pressure load)" % (summary, rx))
    corners.setdefault(name, u)
    for other, v in corners.items():
        tol = 2e-2 if "plate" in (name, other) else 1e-3
        err = max(abs(a - b) for a, b in zip(u, v)) / max(abs(b) for b in v)
        if err > tol:
            print("FAIL: %s: the corner displacement %s differs from %s's %s by %.2g (> %g)" % (
                summary, u, other, v, err, tol))
            ok = False
    print("%s %s: reaction %.10g, corner u %s" % (
        "checked" if ok else "FAIL:", os.path.basename(os.path.dirname(summary)), rx, ["%.6g" % c for c in u]))
    return ok


def check_hex20(args, msh, job):
    """The hex20 bracket solved again with reduced integration and a VTU: see the top."""
    with open(job) as f:
        j = json.load(f)
    j["sections"][0]["formulation"] = "reduced"
    j["output"] = {"vtu": True}
    job_r = job.replace(".json", "_reduced.json")
    with open(job_r, "w") as f:
        json.dump(j, f)
    p = subprocess.run([args.solver, msh, "--job", job_r, "-o", msh + ".reduced", "--backend", "cpu", "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print("FAIL: %s: the reduced run did not solve: %s" % (msh, p.stdout[-800:]))
        return False
    ok, u = True, {}
    for kind, out in (("full", msh + ".out"), ("reduced", msh + ".reduced")):
        with open(os.path.join(out, "summary.json")) as f:
            sets = json.load(f)["node_sets"]
        rx, u[kind] = sets["fixed"]["RF"][0], sets["loaded"]["U_mean"]
        if abs(rx - 10 * 10 * 20) > 1e-6 * 2000:
            print("FAIL: %s %s: the reaction on fixed is %.10g, not 2000 (the pressure load)" % (msh, kind, rx))
            ok = False
    err = max(abs(a - b) for a, b in zip(u["full"], u["reduced"])) / max(abs(b) for b in u["full"])
    if err > 1e-2:
        print("FAIL: %s: full and reduced mean displacements of loaded differ by %.2g" % (msh, err))
        ok = False
    v = vlib.read_vtu(os.path.join(msh + ".reduced", "increment_0001.vtu"))
    conn, offs, types, pts = v["cells"]["connectivity"], v["cells"]["offsets"], v["cells"]["types"], v["points"]
    if set(types) != {25}:
        print("FAIL: %s: VTU cell types %s, expected 25 (VTK_QUADRATIC_HEXAHEDRON)" % (msh, sorted(set(types))))
        ok = False
    worst = 0.0
    for c in range(len(offs)):
        cell = conn[offs[c] - 20:offs[c]]
        for m, (a, b) in enumerate(VTK_HEX20_EDGES):
            mid = [(pts[cell[a]][k] + pts[cell[b]][k]) / 2 for k in range(3)]
            worst = max(worst, max(abs(mid[k] - pts[cell[8 + m]][k]) for k in range(3)))
    if worst > 1e-9:
        print("FAIL: %s: a VTU mid-edge node is %.3g off its VTK edge's midpoint" % (msh, worst))
        ok = False
    print("%s %s: reaction balances the pressure (full, reduced), displacements differ by %.2g, VTU order ok" % (
        "checked" if ok else "FAIL:", os.path.basename(msh), err))
    return ok


def triple(a, b, c, d):
    """(b - a) x (c - a) . (d - a)"""
    u, v, w = ([q[k] - a[k] for k in range(3)] for q in (b, c, d))
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
            u[2] * (v[0] * w[1] - v[1] * w[0]))


def check_wedge(args, msh, job, etype):
    """The wedge bracket solved again with a VTU: see the top."""
    with open(job) as f:
        j = json.load(f)
    j["output"] = {"vtu": True}
    job_v = job.replace(".json", "_vtu.json")
    with open(job_v, "w") as f:
        json.dump(j, f)
    out = msh + ".vtu"
    p = subprocess.run([args.solver, msh, "--job", job_v, "-o", out, "--backend", "cpu", "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print("FAIL: %s: the run with a VTU did not solve: %s" % (msh, p.stdout[-800:]))
        return False
    ok = True
    with open(os.path.join(out, "summary.json")) as f:
        rx = json.load(f)["node_sets"]["fixed"]["RF"]
    if abs(rx[0] - 10 * 10 * 20) > 1e-6 * 2000 or max(abs(rx[1]), abs(rx[2])) > 1e-6 * 2000:
        print("FAIL: %s: the reaction on fixed is %s, not (2000, 0, 0) (the pressure load)" % (msh, rx))
        ok = False
    want, npe = (13, 6) if etype == "wedge6" else (26, 15)
    v = vlib.read_vtu(os.path.join(out, "increment_0001.vtu"))
    conn, offs, types, pts = v["cells"]["connectivity"], v["cells"]["offsets"], v["cells"]["types"], v["points"]
    if set(types) != {want}:
        print("FAIL: %s: VTU cell types %s, expected %d" % (msh, sorted(set(types)), want))
        ok = False
    worst, mirrored = 0.0, 0
    for c in range(len(offs)):
        cell = conn[offs[c] - npe:offs[c]]
        mirrored += triple(*(pts[cell[a]] for a in (0, 1, 2, 3))) < 0
        for m, (a, b) in enumerate(VTK_WEDGE15_EDGES if npe == 15 else []):
            mid = [(pts[cell[a]][k] + pts[cell[b]][k]) / 2 for k in range(3)]
            worst = max(worst, max(abs(mid[k] - pts[cell[6 + m]][k]) for k in range(3)))
    if mirrored != len(offs):
        print("FAIL: %s: %d of %d VTU wedges are not in VTK's orientation" % (msh, len(offs) - mirrored, len(offs)))
        ok = False
    if worst > 1e-9:
        print("FAIL: %s: a VTU mid-edge node is %.3g off its VTK edge's midpoint" % (msh, worst))
        ok = False
    print("%s %s: reaction %.10g balances the pressure, %d VTU cells of type %d in VTK's order" % (
        "checked" if ok else "FAIL:", os.path.basename(msh), rx[0], len(offs), want))
    return ok


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
    failed, corners = False, {}
    for name, geo_file, dim, options, formats, only in VARIANTS:
        geo = name.split("_")[0]
        src = os.path.join(HERE, geo_file)
        files = []
        for fmt, extra in formats:
            out = os.path.join(args.work, "%s_%s%s.msh" % (name, fmt, "_bin" if extra else ""))
            p = subprocess.run(["gmsh", dim, src, *options, "-format", fmt, *extra, "-o", out], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                print("FAIL: gmsh %s %s: %s" % (name, fmt, p.stdout[-500:]))
                return 1
            files.append(out)
        p = subprocess.run([args.importer, geo] + files, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(p.stdout, end="")
        failed |= p.returncode != 0
        if only:  # the signature's element counts: "elems N <type>:N |"
            for line in p.stdout.splitlines():
                m = re.search(r" elems (\d+) (.*?) \|", line)
                if m and m.group(2) != "%s:%s" % (only, m.group(1)):
                    print("FAIL: %s: expected %s elements only, got %s" % (line.split(":")[0], only, m.group(2)))
                    failed = True
            if p.returncode != 0 or len([l for l in p.stdout.splitlines() if " elems " in l]) != len(files):
                print("FAIL: %s: not every file imported (rc %d)" % (name, p.returncode))
                failed = True
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
            if ok and geo == "plate":
                failed |= not check_plate(os.path.join(msh + ".out", "summary.json"), name, corners)
            if ok and only == "hex20":
                failed |= not check_hex20(args, msh, job)
            if ok and only in ("wedge6", "wedge15"):
                failed |= not check_wedge(args, msh, job, only)
    print("FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
