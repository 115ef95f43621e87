#!/usr/bin/env python3
"""Generate the example jobs in examples/ (Python 3 standard library only).

Usage: python3 examples/gen/gen_examples.py [output-dir]   (default: examples/)

Each example is small on purpose (a few KB): they are parsed by the tests and are meant to be
read. Node orderings follow CalculiX/Abaqus (C3D8, C3D10, CPE4, S4); faces are S1..Sn (a shell's
SPOS and SNEG).
"""
import json
import os
import sys


def dump(obj, ind=0):
    """JSON with scalar lists on one line and one row per line for lists of lists."""
    pad, pad1 = "  " * ind, "  " * (ind + 1)
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad1}{json.dumps(k)}: {dump(v, ind + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        if all(not isinstance(v, (list, dict)) for v in obj):
            return "[" + ", ".join(json.dumps(v) for v in obj) + "]"
        return "[\n" + ",\n".join(pad1 + dump(v, ind + 1) for v in obj) + "\n" + pad + "]"
    if isinstance(obj, float):
        return repr(round(obj, 12)).replace("e+", "e")
    return json.dumps(obj)


def box_hex8(nx, ny, nz, lx, ly, lz):
    """Structured hex8 mesh of [0,lx]x[0,ly]x[0,lz]; returns nodes, elements, node id function."""
    nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)
    nodes = [[nid(i, j, k), lx * i / nx, ly * j / ny, lz * k / nz]
             for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
    elems, eid = [], 1
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                c = [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k)]
                c += [nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]
                elems.append([eid] + c)
                eid += 1
    return nodes, elems


def nodes_where(nodes, pred):
    return [n[0] for n in nodes if pred(*n[1:])]


def rollers():
    return [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]},
            {"node_set": "z0", "fixed": ["z"]}]


def unit_cube():
    corners = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
    nodes = [[i + 1, float(x), float(y), float(z)] for i, (x, y, z) in enumerate(corners)]
    elems = [[1, 1, 2, 3, 4, 5, 6, 7, 8]]
    steps = [{"name": f"p{p}", "increments": 1, "boundary": rollers(),
              "loads": [{"type": "traction", "surface": "top", "value": [0, 0, p]}]} for p in (200, 400, 600)]
    return {
        "ductile": 1,
        "title": "Unit cube, uniaxial tension 200/400/600 MPa past yield (linear hardening)",
        "mesh": {
            "nodes": nodes,
            "elements": [{"type": "hex8", "connectivity": elems}],
            "node_sets": {"x0": nodes_where(nodes, lambda x, y, z: x == 0),
                          "y0": nodes_where(nodes, lambda x, y, z: y == 0),
                          "z0": nodes_where(nodes, lambda x, y, z: z == 0),
                          "top": nodes_where(nodes, lambda x, y, z: z == 1)},
            "element_sets": {"all": [1]},
            "surfaces": {"top": [[1, "S2"]]},
        },
        "materials": [{"name": "steel", "elastic": {"E": 200000.0, "nu": 0.3},
                       "plastic": {"yield_stress": 450.0, "hardening": {"type": "linear", "modulus": 66000.0}}}],
        "sections": [{"element_set": "all", "material": "steel", "kind": "solid"}],
        "steps": steps,
        "output": {"fields": ["U", "RF", "S", "E", "PEEQ", "MISES"], "vtu": True, "every": 1,
                   "monitors": [{"name": "uz_top", "node_set": "top", "quantity": "U", "component": "z"},
                                {"name": "rz_bottom", "node_set": "z0", "quantity": "RF", "component": "z"}]},
    }


def cantilever():
    nx, ny, nz, L = 10, 2, 2, 10.0
    nodes, elems = box_hex8(nx, ny, nz, L, 1.0, 1.0)
    tip_faces = [[e[0], "S4"] for e in elems if (e[0] - 1) % nx == nx - 1]
    return {
        "ductile": 1,
        "title": "Elastic cantilever 10 x 1 x 1, 10 x 2 x 2 hex8, end shear traction (total 10)",
        "mesh": {
            "nodes": nodes,
            "elements": [{"type": "hex8", "connectivity": elems}],
            "node_sets": {"root": nodes_where(nodes, lambda x, y, z: x == 0),
                          "tip": nodes_where(nodes, lambda x, y, z: x == L)},
            "element_sets": {"beam": {"generate": [1, len(elems), 1]}},
            "surfaces": {"tip": tip_faces},
        },
        "materials": [{"name": "steel", "elastic": {"E": 200000.0, "nu": 0.3}}],
        "sections": [{"element_set": "beam", "material": "steel", "kind": "solid", "formulation": "full"}],
        "steps": [{"name": "bend", "increments": {"type": "fixed", "count": 1},
                   "boundary": [{"node_set": "root", "fixed": "all"}],
                   "loads": [{"type": "traction", "surface": "tip", "value": [0, 0, -10.0]}]}],
        "solver": {"newton": {"max_iterations": 10},
                   "linear": {"method": "pcg", "preconditioner": "block_jacobi", "tolerance": 1e-10}},
        "output": {"fields": ["U", "RF", "S", "MISES"],
                   "monitors": [{"name": "uz_tip", "node_set": "tip", "quantity": "U", "component": "z"},
                                {"name": "rz_root", "node_set": "root", "quantity": "RF", "component": "z"}]},
    }


def plate():
    nx, ny, lx, ly = 10, 5, 10.0, 5.0
    nid = lambda i, j: 1 + i + (nx + 1) * j
    nodes = [[nid(i, j), lx * i / nx, ly * j / ny] for j in range(ny + 1) for i in range(nx + 1)]
    elems = [[1 + i + nx * j, nid(i, j), nid(i + 1, j), nid(i + 1, j + 1), nid(i, j + 1)]
             for j in range(ny) for i in range(nx)]
    top_edges = [[e[0], "S3"] for e in elems if (e[0] - 1) // nx == ny - 1]
    fixed = [{"node_set": "left", "fixed": ["x"]}, {"node_set": "bottom", "fixed": ["y"]}]
    return {
        "ductile": 1,
        "title": "Plane-strain plate pulled past yield and released (quad4, table hardening)",
        "mesh": {
            "nodes": nodes,
            "elements": [{"type": "quad4", "connectivity": elems}],
            "node_sets": {"left": nodes_where(nodes, lambda x, y: x == 0),
                          "bottom": nodes_where(nodes, lambda x, y: y == 0),
                          "right": nodes_where(nodes, lambda x, y: x == lx)},
            "element_sets": {"plate": {"generate": [1, len(elems), 1]}},
            "surfaces": {"top": top_edges},
        },
        "materials": [{"name": "aluminium", "elastic": {"E": 70000.0, "nu": 0.33},
                       "plastic": {"hardening": {"type": "table",
                                                 "points": [[250.0, 0.0], [300.0, 0.01], [340.0, 0.05]]}}}],
        "sections": [{"element_set": "plate", "material": "aluminium", "kind": "plane_strain", "thickness": 1.0}],
        "steps": [
            {"name": "pull",
             "increments": {"type": "automatic", "initial": 0.1, "min": 1e-4, "max": 0.25, "max_cutbacks": 8},
             "boundary": fixed + [{"node_set": "right", "displacement": {"x": 0.08}}],
             "loads": [{"type": "pressure", "surface": "top", "value": 5.0}]},
            {"name": "release", "increments": 4, "boundary": fixed,
             "loads": [{"type": "pressure", "surface": "top", "value": 5.0}]},
        ],
        "solver": {"newton": {"max_iterations": 25, "force_tolerance": 1e-6, "displacement_tolerance": 1e-6},
                   "linear": {"preconditioner": "jacobi", "tolerance": 1e-9, "max_iterations": 5000}},
        "output": {"every": 2,
                   "monitors": [{"name": "ux_right", "node_set": "right", "quantity": "U", "component": "x"},
                                {"name": "rx_left", "node_set": "left", "quantity": "RF", "component": "x"}]},
    }


def vessel_axisymmetric():
    """A thick-walled cylinder (a = 1 <= r <= b = 2, height 1) as an axisymmetric model of quad8r
    (CalculiX's CAX8R): x is the radius, y the axis. Both ends are held axially (plane strain)
    and the bore pressurised past first yield (about 104 at the bore); the reactions are the
    whole ring's (the ends' axial force is 2 pi nu p a^2 while elastic)."""
    nr, nz, a, b, h = 8, 2, 1.0, 2.0, 1.0
    ids, nodes = {}, []
    for J in range(2 * nz + 1):
        for I in range(2 * nr + 1):
            if I % 2 and J % 2:
                continue  # quad8r has no centre node
            ids[I, J] = len(nodes) + 1
            nodes.append([len(nodes) + 1, a + (b - a) * I / (2 * nr), h * J / (2 * nz)])
    order = [(0, 0), (2, 0), (2, 2), (0, 2), (1, 0), (2, 1), (1, 2), (0, 1)]
    elems = [[1 + i + nr * j] + [ids[2 * i + di, 2 * j + dj] for di, dj in order]
             for j in range(nz) for i in range(nr)]
    bore = [[e[0], "S4"] for e in elems if (e[0] - 1) % nr == 0]
    return {
        "ductile": 1,
        "title": "Axisymmetric thick-walled cylinder pressurised past first yield (quad8r, CAX8R)",
        "mesh": {
            "nodes": nodes,
            "elements": [{"type": "quad8r", "connectivity": elems}],
            "node_sets": {"bottom": nodes_where(nodes, lambda x, y: y == 0),
                          "ends": nodes_where(nodes, lambda x, y: y in (0.0, h)),
                          "bore": nodes_where(nodes, lambda x, y: x == a)},
            "element_sets": {"wall": {"generate": [1, len(elems), 1]}},
            "surfaces": {"bore": bore},
        },
        "materials": [{"name": "steel", "elastic": {"E": 210000.0, "nu": 0.3},
                       "plastic": {"yield_stress": 240.0, "hardening": {"type": "linear", "modulus": 1000.0}}}],
        "sections": [{"element_set": "wall", "material": "steel", "kind": "axisymmetric"}],
        "steps": [
            {"name": "pressurise",
             "increments": {"type": "automatic", "initial": 0.25, "min": 1e-4, "max": 0.25, "max_cutbacks": 8},
             "boundary": [{"node_set": "ends", "fixed": ["y"]}],
             "loads": [{"type": "pressure", "surface": "bore", "value": 150.0}]},
        ],
        "output": {"monitors": [{"name": "ur_bore", "node_set": "bore", "quantity": "U", "component": "x"},
                                {"name": "ry_bottom", "node_set": "bottom", "quantity": "RF", "component": "y"}]},
    }


def footing():
    """A smooth strip footing on Mohr-Coulomb soil, pushed to collapse (half model, quad4)."""
    nx, ny, lx, ly, b = 20, 10, 5.0, 2.5, 0.5
    nid = lambda i, j: 1 + i + (nx + 1) * j
    nodes = [[nid(i, j), lx * i / nx, ly * j / ny] for j in range(ny + 1) for i in range(nx + 1)]
    elems = [[1 + i + nx * j, nid(i, j), nid(i + 1, j), nid(i + 1, j + 1), nid(i, j + 1)]
             for j in range(ny) for i in range(nx)]
    return {
        "ductile": 1,
        "title": "Smooth strip footing on Mohr-Coulomb soil, pushed to collapse (quad4, plane strain)",
        "mesh": {
            "nodes": nodes,
            "elements": [{"type": "quad4", "connectivity": elems}],
            "node_sets": {"sides": nodes_where(nodes, lambda x, y: x == 0 or x == lx),
                          "bottom": nodes_where(nodes, lambda x, y: y == 0),
                          "footing": nodes_where(nodes, lambda x, y: y == ly and x <= b + 1e-9)},
            "element_sets": {"soil": {"generate": [1, len(elems), 1]}},
        },
        "materials": [{"name": "clay", "elastic": {"E": 10000.0, "nu": 0.3},
                       "plastic": {"criterion": "mohr_coulomb", "cohesion": 10.0, "friction_angle": 20.0}}],
        "sections": [{"element_set": "soil", "material": "clay", "kind": "plane_strain"}],
        "steps": [
            {"name": "push",
             "increments": {"type": "automatic", "initial": 0.05, "min": 1e-4, "max": 0.05},
             "boundary": [{"node_set": "sides", "fixed": ["x"]}, {"node_set": "bottom", "fixed": "all"},
                          {"node_set": "footing", "displacement": {"y": -0.05}}]},
        ],
        "output": {"fields": ["U", "S", "PEEQ"],
                   "monitors": [{"name": "footing_force", "node_set": "footing", "quantity": "RF",
                                 "component": "y"}]},
    }


def tet10_block():
    # Six Kuhn tetrahedra of the unit cube, each with positive orientation, plus midside nodes.
    corner = {}
    nodes = []
    for k in range(2):
        for j in range(2):
            for i in range(2):
                corner[(i, j, k)] = len(nodes) + 1
                nodes.append([len(nodes) + 1, float(i), float(j), float(k)])
    pos = {n[0]: n[1:] for n in nodes}
    mid = {}

    def midnode(a, b):
        key = (min(a, b), max(a, b))
        if key not in mid:
            x = [(p + q) / 2 for p, q in zip(pos[a], pos[b])]
            nid = len(nodes) + 1
            nodes.append([nid] + x)
            pos[nid] = x
            mid[key] = nid
        return mid[key]

    def orient(v):
        p = [pos[a] for a in v]
        d = [[p[i][c] - p[0][c] for c in range(3)] for i in (1, 2, 3)]
        return (d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0])
                + d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0]))

    elems = []
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        p, v = [0, 0, 0], [corner[(0, 0, 0)]]
        for axis in perm:
            p[axis] = 1
            v.append(corner[tuple(p)])
        if orient(v) < 0:
            v[1], v[2] = v[2], v[1]
        a, b, c, d = v
        edges = [(a, b), (b, c), (c, a), (a, d), (b, d), (c, d)]  # C3D10 midside order
        elems.append([len(elems) + 1] + v + [midnode(*e) for e in edges])
    return {
        "ductile": 1,
        "title": "Unit block of six tet10 elements in compression (Voce hardening)",
        "mesh": {
            "nodes": nodes,
            "elements": [{"type": "tet10", "connectivity": elems}],
            "node_sets": {"x0": nodes_where(nodes, lambda x, y, z: x == 0),
                          "y0": nodes_where(nodes, lambda x, y, z: y == 0),
                          "z0": nodes_where(nodes, lambda x, y, z: z == 0),
                          "top": nodes_where(nodes, lambda x, y, z: z == 1)},
            "element_sets": {"block": {"generate": [1, 6]}},
        },
        "materials": [{"name": "mild_steel", "elastic": {"E": 210000.0, "nu": 0.3},
                       "plastic": {"yield_stress": 250.0,
                                   "hardening": {"type": "voce", "modulus": 1000.0, "q": 100.0, "b": 20.0}}}],
        "sections": [{"element_set": "block", "material": "mild_steel", "kind": "solid"}],
        "steps": [{"name": "press", "increments": 5,
                   "boundary": rollers() + [{"node_set": "top", "displacement": {"z": -0.005}}]}],
        "output": {"monitors": [{"name": "rz_top", "node_set": "top", "quantity": "RF", "component": "z"}]},
    }


def shell_plate_explicit():
    """A simply supported square steel plate (shell4, MITC4) under a pressure ramped up and held,
    explicit dynamics with mass-proportional damping (units mm, N, s, tonne)."""
    n, a, t = 8, 200.0, 2.0
    nid = lambda i, j: 1 + i + (n + 1) * j
    nodes = [[nid(i, j), a * i / n, a * j / n, 0.0] for j in range(n + 1) for i in range(n + 1)]
    elems = [[1 + i + n * j, nid(i, j), nid(i + 1, j), nid(i + 1, j + 1), nid(i, j + 1)]
             for j in range(n) for i in range(n)]
    return {
        "ductile": 1,
        "title": "Simply supported square plate under a pressure ramp (shell4, explicit dynamics)",
        "mesh": {
            "nodes": nodes,
            "elements": [{"type": "shell4", "connectivity": elems}],
            "node_sets": {"edges": nodes_where(nodes, lambda x, y, z: x in (0, a) or y in (0, a)),
                          "origin": [nid(0, 0)], "corner_x": [nid(n, 0)],
                          "centre": [nid(n // 2, n // 2)]},
            "element_sets": {"plate": {"generate": [1, len(elems)]}},
            "surfaces": {"top": [[e[0], "SPOS"] for e in elems]},
        },
        "materials": [{"name": "steel", "elastic": {"E": 210000.0, "nu": 0.3}, "density": 7.85e-9}],
        "sections": [{"element_set": "plate", "material": "steel", "kind": "shell", "thickness": t}],
        "steps": [
            {"name": "pressure", "procedure": "explicit",
             "explicit": {"time": 0.02, "damping": 300.0, "output": {"frames": 20},
                          "amplitude": [[0.0, 0.0], [0.01, 1.0], [0.02, 1.0]]},
             "boundary": [{"node_set": "edges", "fixed": ["z"]},
                          {"node_set": "origin", "fixed": ["x", "y"]},
                          {"node_set": "corner_x", "fixed": ["y"]}],
             "loads": [{"type": "pressure", "surface": "top", "value": 0.01}]},
        ],
        "output": {"fields": ["U", "S", "MISES"],
                   "monitors": [{"name": "uz_centre", "node_set": "centre", "quantity": "U",
                                 "component": "z"}]},
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    for name, job in (("unit_cube", unit_cube()), ("cantilever_hex8", cantilever()),
                      ("plate_quad4_plane_strain", plate()), ("tet10_block", tet10_block()),
                      ("footing_mohr_coulomb", footing()),
                      ("shell_plate_explicit", shell_plate_explicit()),
                      ("vessel_axisymmetric", vessel_axisymmetric())):
        with open(os.path.join(out, name + ".json"), "w") as f:
            f.write(dump(job) + "\n")


if __name__ == "__main__":
    main()
