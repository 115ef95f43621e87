#!/usr/bin/env python3
"""Mesh one model of the `real` suite with Gmsh and write ONE Abaqus/CalculiX deck that both
CalculiX (`ccx -i MODEL`) and ductile (`ductile-solve MODEL.inp -o OUT`) run unchanged.

    make_real.py MODEL SIZE OUTDIR [--gmsh gmsh] [--threads N]
    make_real.py --list

MODEL is one of MODELS below (bench/real/<model>/<geo>), SIZE one of SIZES (tiny is for CI).
Writes OUTDIR/MODEL.inp, OUTDIR/MODEL.msh (Gmsh 2.2 ASCII, the mesh the deck was made from)
and OUTDIR/MODEL.json: the mesh's counts, the Gmsh version and command, what the runner needs
(the loaded set and its direction) and how long meshing took.

Gmsh makes the mesh (`gmsh -3 GEO -setnumber s S -format msh22`); this script writes the deck
itself: only the volume elements (tet10 with Gmsh's last two mid-edge nodes swapped into
CalculiX's order; hex8 as they are), each checked for a positive volume and turned over if
Gmsh gave it negative (second order is straight-sided, Mesh.SecondOrderLinear = 1, so a
positive corner tetrahedron means a positive Jacobian everywhere), node sets from the physical
surfaces, pressure as *DLOAD on element sets of faces (one set per face number), the
material, the boundary conditions and the step. Python 3 standard library only.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = os.path.join(os.path.dirname(HERE), "real")

# Steel: E = 210 GPa, nu = 0.3, yield 250 MPa hardening (Voce-like) to about 395 MPa at 10 %
# plastic strain, flat after the last row (both codes extrapolate a table flat).
STEEL = {"name": "STEEL", "E": 210000.0, "nu": 0.3,
         "plastic": [(round(250.0 + 150.0 * (1.0 - math.exp(-ep / 0.03)), 2), ep)
                     for ep in (0.0, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1)]}
# Undrained clay for the footing (kPa): Tresca cohesion c_u = 10 kPa matched by von Mises in
# plane strain (yield sqrt(3) c_u), perfectly plastic. Neither CalculiX 2.20 nor ductile's deck
# importer has a Mohr-Coulomb keyword; ductile's Mohr-Coulomb runs in the mohr_coulomb suite.
CLAY = {"name": "CLAY", "E": 1.0e4, "nu": 0.3, "plastic": [(round(math.sqrt(3.0) * 10.0, 4), 0.0)]}

# s per size (every element size of the .geo is proportional to s), calibrated with Gmsh 4.8.4 to
# give about 5k (tiny: CI), 50k (small), 400k (medium) and 2.4M (large) DOFs.
MODELS = {
    "plate_holes": {"geo": "plate_holes/plate_holes.geo", "type": "C3D10", "material": STEEL,
                    "what": "plate with two holes, tension (grips: one clamped, one pulled in x)", "load": 0.3,
                    "s": {"tiny": 4.878, "small": 1.526, "medium": 0.72, "large": 0.387}},
    "notched_bar": {"geo": "notched_bar/notched_bar.geo", "type": "C3D10", "material": STEEL,
                    "what": "round bar, U notch, tension (grips: one clamped, one pulled in z)", "load": 0.16,
                    "s": {"tiny": 2.317, "small": 0.93, "medium": 0.432, "large": 0.237}},
    "lbracket_c3d8": {"geo": "lbracket_c3d8/lbracket_c3d8.geo", "type": "C3D8", "material": STEEL,
                      "what": "L-bracket, hex8: one leg clamped, the arm's end pushed down (-y)", "load": -9.0,
                      "s": {"tiny": 2.139, "small": 0.8, "medium": 0.4, "large": 0.219}},
    "lbracket_c3d10": {"geo": "lbracket_c3d10/lbracket_c3d10.geo", "type": "C3D10", "material": STEEL,
                       "what": "the same L-bracket, tet10", "load": -9.0,
                       "s": {"tiny": 5.98, "small": 2.006, "medium": 0.95, "large": 0.514}},
    "lug": {"geo": "lug/lug.geo", "type": "C3D10", "material": STEEL,
            "what": "lug with a pin load: shank clamped, the half bore facing away pulled in x", "load": 0.12,
            "s": {"tiny": 4.672, "small": 1.678, "medium": 0.8, "large": 0.435}},
    "flanged_pipe": {"geo": "flanged_pipe/flanged_pipe.geo", "type": "C3D10", "material": STEEL,
                     "what": "flanged spool (an eighth: the mid-plane and two planes of symmetry), "
                             "internal pressure (MPa)",
                     "load": 76.0,
                     "s": {"tiny": 3.955, "small": 1.38, "medium": 0.65, "large": 0.354}},
    "footing": {"geo": "footing/footing.geo", "type": "C3D8", "material": CLAY,
                "what": "square footing on undrained clay (quarter, hex8), pushed down (m)", "load": -0.012,
                "s": {"tiny": 2.113, "small": 0.9, "medium": 0.45, "large": 0.239}},
}
SIZES = ("tiny", "small", "medium", "large")
INCREMENTS = (0.1, 1.0, 1e-5, 0.1)  # *STATIC: initial, period, min, max (automatic)

# Gmsh element types: volume (ours) and surface (for node sets and pressure faces).
VOLUME = {4: ("tet4", 4), 11: ("tet10", 10), 5: ("hex8", 8)}
SURFACE = {2: 3, 9: 6, 3: 4, 10: 9, 16: 8}
# Corner nodes (0-based) of CalculiX's faces S1.. (C3D4/C3D10 and C3D8).
TET_FACES = ((0, 1, 2), (0, 3, 1), (1, 3, 2), (2, 3, 0))
HEX_FACES = ((0, 1, 2, 3), (4, 7, 6, 5), (0, 4, 5, 1), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 4, 0))


def gmsh_version(gmsh):
    out = subprocess.run([gmsh, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "unknown"


def read_msh22(path):
    """nodes {id: (x, y, z)}, volume elements [(id, kind, nodes)], surface elements by physical
    name {name: [nodes]}, physical names {tag: (dim, name)}."""
    names, nodes, vol, surf = {}, {}, [], {}
    with open(path) as f:
        section = None
        for line in f:
            if line.startswith("$"):
                section = None if line.startswith("$End") else line.strip()[1:]
                count = True
                continue
            if section in ("Nodes", "Elements", "PhysicalNames") and count:
                count = False
                continue
            p = line.split()
            if section == "PhysicalNames":
                names[int(p[1])] = (int(p[0]), p[2].strip('"'))
            elif section == "Nodes":
                nodes[int(p[0])] = (float(p[1]), float(p[2]), float(p[3]))
            elif section == "Elements":
                etype, ntags = int(p[1]), int(p[2])
                phys = int(p[3]) if ntags > 0 else 0
                conn = [int(v) for v in p[3 + ntags:]]
                if etype in VOLUME:
                    vol.append((int(p[0]), etype, conn))
                elif etype in SURFACE:
                    surf.setdefault(names.get(phys, (2, "physical%d" % phys))[1], []).append(conn)
                elif etype not in (15, 1, 8, 26):  # points and lines carry nothing here
                    raise SystemExit("%s: Gmsh element type %d (e.g. a prism or pyramid: a triangle left in "
                                     "a quadrangle mesh) is not one the deck can hold" % (path, etype))
    return nodes, vol, surf, names


def signed_volume(x, c):
    a, b, cc, d = (x[i] for i in c)
    u = [b[k] - a[k] for k in range(3)]
    v = [cc[k] - a[k] for k in range(3)]
    w = [d[k] - a[k] for k in range(3)]
    return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
            + u[2] * (v[0] * w[1] - v[1] * w[0]))


def hex_volume(x, c):
    """Sum of the signed volumes of the hex's 5-tet split: its sign is the element's orientation."""
    t = ((0, 1, 3, 4), (1, 2, 3, 6), (1, 3, 4, 6), (1, 5, 6, 4), (3, 4, 6, 7))
    return sum(signed_volume(x, [c[i] for i in q]) for q in t)


def orient(elements, x):
    """Elements in CalculiX's node order with positive volume; counts of those turned over."""
    out, flipped = [], 0
    for eid, etype, c in elements:
        if etype == 11:
            c = c[:8] + [c[9], c[8]]  # Gmsh's tet10 -> CalculiX C3D10
        if etype in (4, 11):
            vol = signed_volume(x, c[:4])
            if vol < 0:
                flipped += 1
                c = [c[0], c[2], c[1], c[3]] + ([c[6], c[5], c[4], c[7], c[9], c[8]] if etype == 11 else [])
                vol = -vol
        else:
            vol = hex_volume(x, c)
            if vol < 0:
                flipped += 1
                c = c[4:] + c[:4]
                vol = -vol
        if not vol > 0:
            raise SystemExit("element %d is degenerate (volume %g)" % (eid, vol))
        out.append((eid, etype, c))
    return out, flipped


def face_sets(elements, tris, prefix):
    """{face number: [element ids]} of the element faces that are the surface elements `tris`."""
    want = {frozenset(t[:4] if len(t) in (4, 8, 9) else t[:3]) for t in tris}
    corners = set().union(*want) if want else set()
    out = {}
    for eid, etype, c in elements:
        faces = TET_FACES if etype in (4, 11) else HEX_FACES
        if sum(1 for n in c[:8 if etype == 5 else 4] if n in corners) < 3:
            continue
        for k, f in enumerate(faces):
            if frozenset(c[i] for i in f) in want:
                out.setdefault(k + 1, []).append(eid)
    got = sum(len(v) for v in out.values())
    if got != len(want):
        raise SystemExit("%s: %d surface facets, %d element faces matched" % (prefix, len(want), got))
    return {"%s_S%d" % (prefix, k): v for k, v in sorted(out.items())}


def loads(model, spec, nodes, surf, elements):
    """(node sets {NAME: ids}, element sets {NAME: ids}, model-data boundary lines, step lines,
    rf set, rf dof) of each model; spec["load"] is the prescribed displacement or pressure."""
    ns = lambda name: sorted({n for t in surf[name] for n in t})
    v = spec["load"]
    if model in ("plate_holes", "notched_bar", "lbracket_c3d8", "lbracket_c3d10"):
        dof = {"plate_holes": 1, "notched_bar": 3}.get(model, 2)
        others = [k for k in (1, 2, 3) if k != dof]
        grip = ["LOAD, %d, %d" % (k, k) for k in others] if model in ("plate_holes", "notched_bar") else []
        return ({"FIX": ns("fix"), "LOAD": ns("load")}, {}, ["FIX, 1, 3"] + grip,
                ["*BOUNDARY", "LOAD, %d, %d, %r" % (dof, dof, v)], "LOAD", dof)
    if model == "lug":
        xc = 100.0
        pin = sorted({n for t in surf["bore"] for n in t if nodes[n][0] >= xc - 1e-9})
        return ({"FIX": ns("fix"), "PIN": pin}, {}, ["FIX, 1, 3"], ["*BOUNDARY", "PIN, 1, 1, %r" % v], "PIN", 1)
    if model == "flanged_pipe":
        # The seat's reaction is the pipe's axial force: statically indeterminate (both ends
        # held axially), it grows faster than the pressure once the wall flows plastically.
        # No pressure face touches the seat: CalculiX prints the internal force as RF, which
        # at a constrained node that also carries a load includes that load (ductile's RF is
        # the reaction, internal minus external force); the gasket seals there anyway.
        zs = 140.0 - 1e-6
        bore = face_sets(elements, [t for t in surf["bore"] if all(nodes[n][2] < zs for n in t)], "BORE")
        step = ["*DLOAD"] + ["%s, P%s, %r" % (k, k.rsplit("S", 1)[1], v) for k in bore]
        return ({"SEAT": ns("seat"), "MID": ns("mid"), "SYMX": ns("symx"), "SYMY": ns("symy")}, bore,
                ["SYMX, 1, 1", "SYMY, 2, 2", "MID, 3, 3", "SEAT, 3, 3"], step, "SEAT", 3)
    if model == "footing":
        return ({"FOOTING": ns("footing"), "SYMX": ns("symx"), "SYMY": ns("symy"), "FARX": ns("farx"),
                 "FARY": ns("fary"), "BOTTOM": ns("bottom")}, {},
                ["SYMX, 1, 1", "SYMY, 2, 2", "FARX, 1, 1", "FARY, 2, 2", "BOTTOM, 1, 3"],
                ["*BOUNDARY", "FOOTING, 3, 3, %r" % v], "FOOTING", 3)
    raise SystemExit("unknown model " + model)


# Where each model's plastic zone is (element centroids): PEEQ is printed for these elements at
# every increment (printing every point of a 2M-DOF model at every increment would make output
# the largest phase of both codes); the runner checks that ductile's max PEEQ over all points
# (summary.json) is the one in this set.
HOT = {
    "plate_holes": lambda x, y, z: min(math.hypot(x - 70, y - 40), math.hypot(x - 130, y - 40)) < 20,
    "notched_bar": lambda x, y, z: abs(z - 40) < 6,
    # the L-bracket: the whole leg (its bending moment is the same all along it, so it yields
    # all along), the inner corner and the displaced end of the arm
    "lbracket_c3d8": lambda x, y, z: x < 30 or x > 85,
    "lbracket_c3d10": lambda x, y, z: x < 30 or x > 85,
    "lug": lambda x, y, z: math.hypot(x - 100, y) < 26,
    "flanged_pipe": lambda x, y, z: math.hypot(x, y) < 56 or z > 100,
    "footing": lambda x, y, z: x < 1.0 and y < 1.0 and z > 0.8,
}


def hot_set(model, nodes, elements):
    f, out = HOT[model], []
    for eid, etype, c in elements:
        k = 4 if etype in (4, 11) else 8
        x = [sum(nodes[n][d] for n in c[:k]) / k for d in range(3)]
        if f(*x):
            out.append(eid)
    return out


def ids_lines(ids, per=16):
    return [", ".join(str(i) for i in ids[k:k + per]) for k in range(0, len(ids), per)]


def write_deck(path, model, size, spec, nodes, elements, nsets, elsets, bc_model, step, rf_set, info):
    mat = spec["material"]
    used = sorted({n for _, _, c in elements for n in c})
    with open(path, "w") as f:
        w = lambda s: f.write(s + "\n")
        w("*HEADING")
        w("ductile real suite: %s, size %s (%s; %s)" % (model, size, spec["what"], info["gmsh"]))
        w("** Written by bench/lib/make_real.py from bench/real/%s, s = %g: %d nodes, %d %s elements."
          % (spec["geo"], spec["s"][size], len(used), len(elements), spec["type"]))
        w("*NODE, NSET=NALL")
        for n in used:
            x = nodes[n]
            w("%d, %.12g, %.12g, %.12g" % (n, x[0], x[1], x[2]))
        w("*ELEMENT, TYPE=%s, ELSET=EALL" % spec["type"])
        for eid, _, c in elements:
            w("%d, %s" % (eid, ", ".join(str(n) for n in c)))
        for name, ids in nsets.items():
            w("*NSET, NSET=%s" % name)
            for line in ids_lines(ids):
                w(line)
        for name, ids in elsets.items():
            w("*ELSET, ELSET=%s" % name)
            for line in ids_lines(ids):
                w(line)
        w("*MATERIAL, NAME=%s" % mat["name"])
        w("*ELASTIC")
        w("%r, %r" % (mat["E"], mat["nu"]))
        w("*PLASTIC")
        for s, e in mat["plastic"]:
            w("%r, %r" % (s, e))
        w("*SOLID SECTION, ELSET=EALL, MATERIAL=%s" % mat["name"])
        w("*BOUNDARY")
        for line in bc_model:
            w(line)
        w("*STEP")
        w("*STATIC")
        w(", ".join("%r" % v for v in INCREMENTS))
        for line in step:
            w(line)
        w("*NODE PRINT, NSET=%s" % rf_set)
        w("RF")
        w("*EL PRINT, ELSET=HOT")
        w("PEEQ")
        # Field output as an engineer asks for it: both codes write it every increment (ccx's
        # .frd, ductile's VTU), so that the output's cost is part of the comparison.
        w("*NODE FILE")
        w("U")
        w("*EL FILE")
        w("S, PEEQ")
        w("*END STEP")
    return used


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model", nargs="?")
    ap.add_argument("size", nargs="?")
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--gmsh", default="gmsh")
    ap.add_argument("--threads", type=int, default=1,
                    help="Gmsh's threads (-nt): faster, but a mesh made with other threads differs from the "
                         "references' and other hosts' (the suite and CI mesh on one thread)")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        for m, spec in MODELS.items():
            print("%-15s %-6s %s" % (m, spec["type"], spec["what"]))
        return 0
    if a.model not in MODELS or a.size not in SIZES or not a.outdir:
        ap.error("usage: make_real.py MODEL SIZE OUTDIR; models: %s; sizes: %s" % (", ".join(MODELS), ", ".join(SIZES)))
    spec = MODELS[a.model]
    os.makedirs(a.outdir, exist_ok=True)
    geo = os.path.join(REAL, spec["geo"])
    msh = os.path.join(a.outdir, a.model + ".msh")
    cmd = [a.gmsh, "-3", geo, "-setnumber", "s", repr(spec["s"][a.size]), "-format", "msh22", "-o", msh]
    if a.threads > 1:
        cmd += ["-nt", str(a.threads)]
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t_mesh = time.time() - t0
    if p.returncode != 0 or re.search(r"^Error", p.stdout, re.M):
        sys.stderr.write(p.stdout[-3000:])
        raise SystemExit("gmsh failed (rc %d): %s" % (p.returncode, " ".join(cmd)))
    t0 = time.time()
    nodes, vol, surf, _ = read_msh22(msh)
    kinds = {VOLUME[t][0] for _, t, _ in vol}
    want = {"C3D10": {"tet10"}, "C3D8": {"hex8"}}[spec["type"]]
    if kinds != want:
        raise SystemExit("%s: the mesh has %s elements, the deck wants %s" % (msh, sorted(kinds), spec["type"]))
    elements, flipped = orient(vol, nodes)
    nsets, elsets, bc_model, step, rf_set, rf_dof = loads(a.model, spec, nodes, surf, elements)
    elsets["HOT"] = hot_set(a.model, nodes, elements)
    info = {"model": a.model, "size": a.size, "gmsh": "gmsh " + gmsh_version(a.gmsh), "s": spec["s"][a.size],
            "element_type": spec["type"], "what": spec["what"], "geo": "bench/real/" + spec["geo"],
            "gmsh_command": " ".join(["gmsh"] + cmd[1:]).replace(REAL + "/", "bench/real/")}
    deck = os.path.join(a.outdir, a.model + ".inp")
    used = write_deck(deck, a.model, a.size, spec, nodes, elements, nsets, elsets, bc_model, step, rf_set, info)
    info.update({"nodes": len(used), "elements": len(elements), "dofs": 3 * len(used), "flipped": flipped,
                 "rf_set": rf_set, "rf_dof": rf_dof, "load": spec["load"], "hot_elements": len(elsets["HOT"]),
                 "node_sets": {k: len(v) for k, v in nsets.items()},
                 "mesh_seconds": round(t_mesh, 2), "deck_seconds": round(time.time() - t0, 2),
                 "deck": os.path.basename(deck)})
    with open(os.path.join(a.outdir, a.model + ".json"), "w") as f:
        json.dump(info, f, indent=1)
    print("%s %s: %d nodes, %d DOFs, %d %s (%d turned over), meshed in %.1f s, deck in %.1f s -> %s"
          % (a.model, a.size, len(used), 3 * len(used), len(elements), spec["type"], flipped, t_mesh,
             info["deck_seconds"], deck))
    return 0


if __name__ == "__main__":
    sys.exit(main())
