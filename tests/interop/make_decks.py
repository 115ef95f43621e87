#!/usr/bin/env python3
"""Write the CalculiX cross-validation decks of tests/interop/decks/ (run once; the decks are
kept in the repository so that both solvers read the very same text).

Each deck is small (tens to a few hundred elements) so that ccx and ductile-solve finish in
seconds. Every deck prints the displacements of all nodes (*NODE PRINT, NSET=NALL) and sets
tight CalculiX convergence criteria (*CONTROLS, PARAMETERS=FIELD: residual 1e-9 of the average
force instead of the default 0.005) so that the comparison measures formulations, not Newton
tolerances. ductile reads *CONTROLS with a warning and keeps its own (tight) defaults.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONTROLS = "*CONTROLS, PARAMETERS=FIELD\n1e-9, 1e-9\n"


def hex_grid(nx, ny, nz, lx, ly, lz):
    nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)
    nodes = [(nid(i, j, k), lx * i / nx, ly * j / ny, lz * k / nz)
             for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
    elems, e = [], 1
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                c = [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                     nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]
                elems.append((e, c, (i, j, k)))
                e += 1
    return nodes, elems


HEX20_EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]


def hex20_grid(nx, ny, nz, lx, ly, lz):
    """hex_grid's elements as C3D20: mid-edge nodes at the edge midpoints, shared, numbered
    after the corner nodes; elements (id, conn, (i, j, k))."""
    nodes, hexes = hex_grid(nx, ny, nz, lx, ly, lz)
    xyz = {n[0]: n[1:] for n in nodes}
    mid, nxt, elems = {}, len(nodes) + 1, []
    for e, c, ijk in hexes:
        c20 = list(c)
        for a, b in HEX20_EDGES:
            key = (min(c[a], c[b]), max(c[a], c[b]))
            if key not in mid:
                mid[key] = nxt
                xyz[nxt] = tuple((xyz[c[a]][i] + xyz[c[b]][i]) / 2 for i in range(3))
                nxt += 1
            c20.append(mid[key])
        elems.append((e, c20, ijk))
    return [(k, *xyz[k]) for k in sorted(xyz)], elems


WEDGE15_EDGES = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (0, 3), (1, 4), (2, 5)]


def wedge_grid(nx, ny, nz, lx, ly, lz, quadratic=False):
    """hex_grid's hexahedra each split into two wedges along the diagonal plane through their
    edges 1-5 and 3-7, the triangles at the bottom and top (z): C3D6 (1, 2, 3, 5, 6, 7) and
    (1, 3, 4, 5, 7, 8), or with quadratic C3D15 with shared mid-edge nodes at the edge midpoints,
    numbered after the corner nodes. Elements (id, conn, (i, j, k, half)): the first half
    (odd ids) has its face S3 on y = j, the second its S4 on y = j + 1 and S5 on x = i."""
    nodes, hexes = hex_grid(nx, ny, nz, lx, ly, lz)
    xyz = {n[0]: n[1:] for n in nodes}
    mid, nxt, elems = {}, len(nodes) + 1, []
    for _, c, ijk in hexes:
        for half, corners in enumerate(((0, 1, 2, 4, 5, 6), (0, 2, 3, 4, 6, 7))):
            w = [c[a] for a in corners]
            if quadratic:
                for a, b in WEDGE15_EDGES:
                    key = (min(w[a], w[b]), max(w[a], w[b]))
                    if key not in mid:
                        mid[key] = nxt
                        xyz[nxt] = tuple((xyz[w[a]][i] + xyz[w[b]][i]) / 2 for i in range(3))
                        nxt += 1
                    w.append(mid[key])
            elems.append((len(elems) + 1, w[:6] + w[6:], ijk + (half,)))
    return [(k, *xyz[k]) for k in sorted(xyz)], elems


def tet10_grid(nx, ny, nz, lx, ly, lz):
    """Each hex split into 6 Kuhn tets (positive orientation), with shared mid-edge nodes."""
    nodes, hexes = hex_grid(nx, ny, nz, lx, ly, lz)
    xyz = {n[0]: n[1:] for n in nodes}
    mid, nxt = {}, len(nodes) + 1
    kuhn = [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)]
    tets, e = [], 1

    def vol(a, b, c, d):
        u = [xyz[b][i] - xyz[a][i] for i in range(3)]
        v = [xyz[c][i] - xyz[a][i] for i in range(3)]
        w = [xyz[d][i] - xyz[a][i] for i in range(3)]
        return (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
                u[2] * (v[0] * w[1] - v[1] * w[0]))

    def m(a, b):
        nonlocal nxt
        key = (min(a, b), max(a, b))
        if key not in mid:
            mid[key] = nxt
            xyz[nxt] = tuple((xyz[a][i] + xyz[b][i]) / 2 for i in range(3))
            nxt += 1
        return mid[key]

    for _, c, _ in hexes:
        for t in kuhn:
            a, b, cc, d = (c[i] for i in t)
            if vol(a, b, cc, d) < 0:
                b, cc = cc, b
            tets.append((e, [a, b, cc, d, m(a, b), m(b, cc), m(cc, a), m(a, d), m(b, d), m(cc, d)]))
            e += 1
    allnodes = [(k, *xyz[k]) for k in sorted(xyz)]
    return allnodes, tets


def quad_grid(nx, ny, lx, ly):
    nid = lambda i, j: 1 + i + (nx + 1) * j
    nodes = [(nid(i, j), lx * i / nx, ly * j / ny) for j in range(ny + 1) for i in range(nx + 1)]
    elems, e = [], 1
    for j in range(ny):
        for i in range(nx):
            elems.append((e, [nid(i, j), nid(i + 1, j), nid(i + 1, j + 1), nid(i, j + 1)], (i, j)))
            e += 1
    return nodes, elems


def quad8_grid(nx, ny, lx, ly, x0=0.0):
    """quad_grid's elements as CPE8 (corners, then the mid-edge nodes of edges 1-2, 2-3, 3-4,
    4-1), on [x0, x0 + lx] x [0, ly]; mid-edge nodes shared, numbered after the corners."""
    nodes, quads = quad_grid(nx, ny, lx, ly)
    xy = {n[0]: (n[1] + x0, n[2]) for n in nodes}
    mid, nxt, elems = {}, len(nodes) + 1, []
    for e, c, ij in quads:
        c8 = list(c)
        for a in range(4):
            key = (min(c[a], c[(a + 1) % 4]), max(c[a], c[(a + 1) % 4]))
            if key not in mid:
                mid[key] = nxt
                xy[nxt] = tuple((xy[key[0]][i] + xy[key[1]][i]) / 2 for i in range(2))
                nxt += 1
            c8.append(mid[key])
        elems.append((e, c8, ij))
    return [(k, *xy[k]) for k in sorted(xy)], elems


def quad8_plate_hole(a, L, nt, nr):
    """Quarter plate [0,L]^2 with a hole of radius a at the origin, one mapped block of CPE8
    (Gmsh/CalculiX node order): s runs around the hole (theta = s pi/2) and along the outer
    edges x = L, y = L (the corner (L, L) is at s = 1/2: nt even), t runs outwards, graded
    towards the hole. Midside nodes at the parameter midpoints: on the arc for the hole's
    edges, at the middle of the straight radial edges. Returns nodes, elements (id, conn, (i, j))."""

    def outer(s):
        return (L, 2 * s * L) if s <= 0.5 else (L * (2 - 2 * s), L)

    def at(s, t):
        th = s * math.pi / 2
        o = outer(s)
        p = ((1 - t) * a * math.cos(th) + t * o[0], (1 - t) * a * math.sin(th) + t * o[1])
        return tuple(0.0 if abs(v) < 1e-12 else v for v in p)  # x = 0 exactly on the symmetry edge

    tj = [(j / nr) ** 1.5 for j in range(nr + 1)]
    tmid = [(tj[j] + tj[j + 1]) / 2 for j in range(nr)]
    # a (2 nt + 1) x (2 nr + 1) grid of parameter points, element centres unused
    ids, nodes = {}, []
    for J in range(2 * nr + 1):
        for I in range(2 * nt + 1):
            if I % 2 and J % 2:
                continue
            t = tj[J // 2] if J % 2 == 0 else tmid[J // 2]
            ids[I, J] = len(nodes) + 1
            nodes.append((len(nodes) + 1, *at(I / (2 * nt), t)))
    elems = []
    for j in range(nr):
        for i in range(nt):
            I, J = 2 * i, 2 * j
            c = [ids[I, J], ids[I, J + 2], ids[I + 2, J + 2], ids[I + 2, J],  # counterclockwise: t, then s
                 ids[I, J + 1], ids[I + 1, J + 2], ids[I + 2, J + 1], ids[I + 1, J]]
            elems.append((len(elems) + 1, c, (i, j)))
    return nodes, elems


def node_block(nodes):
    lines = ["*NODE, NSET=NALL"]
    lines += [", ".join([str(n[0])] + ["%.10g" % v for v in n[1:]]) for n in nodes]
    return "\n".join(lines) + "\n"


def elem_block(etype, elems):
    """At most 16 values per data line, as Abaqus and CalculiX read them: a 20-node element
    continues on a second line."""
    lines = ["*ELEMENT, TYPE=%s, ELSET=EALL" % etype]
    for e in elems:
        v = [str(x) for x in [e[0]] + list(e[1])]
        lines += [", ".join(v[k:k + 16]) + ("," if k + 16 < len(v) else "") for k in range(0, len(v), 16)]
    return "\n".join(lines) + "\n"


def nset(name, ids):
    ids = sorted(ids)
    rows = [", ".join(str(i) for i in ids[k:k + 12]) for k in range(0, len(ids), 12)]
    return "*NSET, NSET=%s\n%s\n" % (name, "\n".join(rows))


def elset(name, ids):
    """12 ids per data line (CalculiX reads at most 16 per line)."""
    ids = sorted(ids)
    rows = [", ".join(str(i) for i in ids[k:k + 12]) for k in range(0, len(ids), 12)]
    return "*ELSET, ELSET=%s\n%s\n" % (name, "\n".join(rows))


def select(nodes, pred):
    return [n[0] for n in nodes if pred(*n[1:])]


def step(body, static="*STATIC\n1., 1.\n"):
    return "*STEP\n" + static + body + CONTROLS + "*NODE PRINT, NSET=NALL\nU\n*END STEP\n"


def deck_hex8_elastic():
    nodes, elems = hex_grid(8, 2, 2, 8.0, 2.0, 2.0)
    top = [e[0] for e in elems if e[2][2] == 1]
    s = "*HEADING\nhex8 (C3D8) elastic cantilever: end force and pressure on the top\n"
    s += node_block(nodes) + elem_block("C3D8", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += nset("TIP", select(nodes, lambda x, y, z: x == 8.0))
    s += "*ELSET, ELSET=TOP\n" + ", ".join(map(str, top)) + "\n"
    s += "*SURFACE, NAME=STOP\nTOP, S2\n"
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 3, -50.\n*DLOAD\nTOP, P2, 2.\n")
    return s


def deck_hex8r_elastic():
    """deck_hex8_elastic's cantilever of C3D8R: in static steps CalculiX's one-point hexahedron
    with hourglass stiffness (hex8r); its rectangular elements are where ductile's hourglass
    vectors and CalculiX's agree (docs/interop.md). RF and S too."""
    nodes, elems = hex_grid(8, 2, 2, 8.0, 2.0, 2.0)
    top = [e[0] for e in elems if e[2][2] == 1]
    s = "*HEADING\nhex8r (C3D8R) elastic cantilever: end force and pressure on the top\n"
    s += node_block(nodes) + elem_block("C3D8R", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += nset("TIP", select(nodes, lambda x, y, z: x == 8.0))
    s += "*ELSET, ELSET=TOP\n" + ", ".join(map(str, top)) + "\n"
    s += "*SURFACE, NAME=STOP\nTOP, S2\n"
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 3, -50.\n*DLOAD\nTOP, P2, 2.\n"
              "*NODE PRINT, NSET=FIX\nRF\n*EL PRINT, ELSET=EALL\nS\n")
    return s


def deck_hex8r_iso():
    """C3D8R bar of the isotropic table pulled past yield by a prescribed end displacement and
    brought back (5 and 4 DIRECT increments), on symmetry planes: the strain is uniform, so the
    hourglass stiffness is not excited and the deck checks the one point's J2 update, RF and S.
    Where plastic points meet hourglass modes, ductile's hex8r and CalculiX's part (ccx scales
    the hourglass stiffness by the point's tangent, ductile keeps it elastic: docs/interop.md)."""
    nodes, elems = hex_grid(6, 2, 2, 6.0, 2.0, 2.0)
    s = "*HEADING\nhex8r (C3D8R) isotropic hardening bar: tension past yield, then back\n"
    s += node_block(nodes) + elem_block("C3D8R", elems)
    s += nset("X0", select(nodes, lambda x, y, z: x == 0))
    s += nset("Y0", select(nodes, lambda x, y, z: y == 0))
    s += nset("Z0", select(nodes, lambda x, y, z: z == 0))
    s += nset("END", select(nodes, lambda x, y, z: x == 6.0))
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC\n200., 0.\n260., 0.05\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    out = "*NODE PRINT, NSET=X0\nRF\n*EL PRINT, ELSET=EALL\nS\n"
    s += step("*BOUNDARY\nX0, 1, 1\nY0, 2, 2\nZ0, 3, 3\nEND, 1, 1, 0.03\n" + out, "*STATIC, DIRECT\n0.2, 1.\n")
    s += step("*BOUNDARY\nEND, 1, 1, 0.01\n" + out, "*STATIC, DIRECT\n0.25, 1.\n")
    return s


def deck_hex8i_elastic():
    """deck_hex8_elastic's cantilever of C3D8I (hex8i): the incompatible modes take out the
    shear locking of C3D8 in bending (tip deflection 0.2847 against C3D8's 0.2516 and C3D8R's
    0.3808; beam theory with shear about 0.295). RF and S too."""
    return deck_hex8r_elastic().replace("C3D8R", "C3D8I").replace("hex8r", "hex8i")


def deck_hex8i_iso():
    """C3D8I beam of deck_hex20r_iso's kind: pressure until the root yields through part of its
    depth (the incompatible modes condensed with the points' J2 updates), then unloaded; fixed
    increments for both solvers."""
    nodes, elems = hex_grid(6, 2, 2, 6.0, 2.0, 2.0)
    top = [e[0] for e in elems if e[2][2] == 1]
    s = "*HEADING\nhex8i (C3D8I) isotropic hardening beam under pressure, then unloaded\n"
    s += node_block(nodes) + elem_block("C3D8I", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += "*ELSET, ELSET=TOP\n" + ", ".join(map(str, top)) + "\n"
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC\n200., 0.\n260., 0.05\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    out = "*NODE PRINT, NSET=FIX\nRF\n*EL PRINT, ELSET=EALL\nS\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*DLOAD\nTOP, P2, 16.\n" + out, "*STATIC, DIRECT\n0.1, 1.\n")
    s += step("*DLOAD, OP=NEW\n" + out, "*STATIC, DIRECT\n0.25, 1.\n")
    return s


def deck_hex20_elastic():
    nodes, elems = hex20_grid(4, 1, 1, 8.0, 2.0, 2.0)
    s = "*HEADING\nhex20 (C3D20) elastic cantilever: end force and pressure on the top\n"
    s += node_block(nodes) + elem_block("C3D20", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += nset("TIP", select(nodes, lambda x, y, z: x == 8.0))
    s += "*SURFACE, NAME=STOP\nEALL, S2\n"
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 3, -20.\n*DLOAD\nEALL, P2, 2.\n"
              "*NODE PRINT, NSET=FIX\nRF\n*EL PRINT, ELSET=EALL\nS\n")
    return s


def deck_hex20r_iso():
    """C3D20R, the element CalculiX recommends for plasticity: a beam two elements through its
    section (with one, the reduced rule's spurious mode propagates along the row), loaded by
    pressure until the root yields through a good part of its depth, then unloaded; fixed
    increments for both solvers."""
    nodes, elems = hex20_grid(6, 2, 2, 6.0, 2.0, 2.0)
    top = [e[0] for e in elems if e[2][2] == 1]
    s = "*HEADING\nhex20r (C3D20R) isotropic hardening beam under pressure, then unloaded\n"
    s += node_block(nodes) + elem_block("C3D20R", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += "*ELSET, ELSET=TOP\n" + ", ".join(map(str, top)) + "\n"
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC\n200., 0.\n260., 0.05\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    out = "*NODE PRINT, NSET=FIX\nRF\n*EL PRINT, ELSET=EALL\nS\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*DLOAD\nTOP, P2, 16.\n" + out, "*STATIC, DIRECT\n0.1, 1.\n")
    s += step("*DLOAD, OP=NEW\n" + out, "*STATIC, DIRECT\n0.25, 1.\n")
    return s


def deck_wedge6_elastic():
    """C3D6 cantilever: an end force, pressure on the top (the wedges' triangular faces S2) and
    on the side y = 0 (quadrilateral faces S3); RF and S (2 points) too."""
    nodes, elems = wedge_grid(8, 2, 2, 8.0, 2.0, 2.0)
    top = [e[0] for e in elems if e[2][2] == 1]
    side = [e[0] for e in elems if e[2][1] == 0 and e[2][3] == 0]
    s = "*HEADING\nwedge6 (C3D6) elastic cantilever: end force, pressure on triangular and quadrilateral faces\n"
    s += node_block(nodes) + elem_block("C3D6", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += nset("TIP", select(nodes, lambda x, y, z: x == 8.0))
    s += elset("TOP", top)
    s += elset("SIDE", side)
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 3, -20.\n*DLOAD\nTOP, P2, 2.\nSIDE, P3, 1.5\n"
              "*NODE PRINT, NSET=FIX\nRF\n*EL PRINT, ELSET=EALL\nS\n")
    return s


def deck_wedge15_elastic():
    """C3D15 cantilever, as wedge6_elastic: pressure on the 6-node triangles (S2) and the
    8-node quadrilaterals (S3); RF and S (9 points) too."""
    nodes, elems = wedge_grid(4, 1, 1, 8.0, 2.0, 2.0, quadratic=True)
    side = [e[0] for e in elems if e[2][3] == 0]
    s = "*HEADING\nwedge15 (C3D15) elastic cantilever: end force, pressure on triangular and quadrilateral faces\n"
    s += node_block(nodes) + elem_block("C3D15", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += nset("TIP", select(nodes, lambda x, y, z: x == 8.0))
    s += elset("SIDE", side)
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*CLOAD\nTIP, 3, -20.\n*DLOAD\nEALL, P2, 2.\nSIDE, P3, 1.5\n"
              "*NODE PRINT, NSET=FIX\nRF\n*EL PRINT, ELSET=EALL\nS\n")
    return s


def deck_wedge6_iso():
    """A C3D6 block (3 x 3 x 3 hexahedra, 54 wedges) with an isotropic hardening table, pulled
    along z and sheared by prescribed displacements well into plasticity, then released; fixed
    increments for both solvers. RF and S too."""
    nodes, elems = wedge_grid(3, 3, 3, 1.0, 1.0, 1.0)
    s = "*HEADING\nwedge6 (C3D6) block, isotropic hardening table: pull and shear, then release\n"
    s += node_block(nodes) + elem_block("C3D6", elems)
    s += nset("X0", select(nodes, lambda x, y, z: x == 0))
    s += nset("Y0", select(nodes, lambda x, y, z: y == 0))
    s += nset("Z0", select(nodes, lambda x, y, z: z == 0))
    s += nset("Z1", select(nodes, lambda x, y, z: z == 1.0))
    s += nset("X1Y1", select(nodes, lambda x, y, z: x == 1.0 and y == 1.0))
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC\n250., 0.\n300., 0.02\n330., 0.1\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += "*BOUNDARY\nX0, 1, 1\nY0, 2, 2\nZ0, 3, 3\n"
    out = "*NODE PRINT, NSET=Z0\nRF\n*EL PRINT, ELSET=EALL\nS\n"
    s += step("*BOUNDARY\nZ1, 3, 3, 0.006\nX1Y1, 1, 1, 0.001\n" + out, "*STATIC, DIRECT\n0.1, 1.\n")
    s += step("*BOUNDARY\nZ1, 3, 3, 0.0\nX1Y1, 1, 1, 0.0\n" + out, "*STATIC, DIRECT\n0.1, 1.\n")
    return s


def deck_wedge15_iso():
    """C3D15 beam (6 x 2 x 2 hexahedra, 48 wedges) with an isotropic hardening table under
    pressure on its top (the triangles S2) until the root yields through a good part of its
    depth, then unloaded (OP=NEW); fixed increments for both solvers. RF and S (9 points) too."""
    nodes, elems = wedge_grid(6, 2, 2, 6.0, 2.0, 2.0, quadratic=True)
    top = [e[0] for e in elems if e[2][2] == 1]
    s = "*HEADING\nwedge15 (C3D15) isotropic hardening beam under pressure, then unloaded\n"
    s += node_block(nodes) + elem_block("C3D15", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += elset("TOP", top)
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC\n200., 0.\n260., 0.05\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    out = "*NODE PRINT, NSET=FIX\nRF\n*EL PRINT, ELSET=EALL\nS\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*DLOAD\nTOP, P2, 16.\n" + out, "*STATIC, DIRECT\n0.1, 1.\n")
    s += step("*DLOAD, OP=NEW\n" + out, "*STATIC, DIRECT\n0.25, 1.\n")
    return s


def deck_tet10_elastic():
    nodes, tets = tet10_grid(2, 2, 3, 2.0, 2.0, 3.0)
    s = "*HEADING\ntet10 (C3D10) elastic column: prescribed top displacement and gravity\n"
    s += node_block(nodes) + elem_block("C3D10", tets)
    s += nset("BASE", select(nodes, lambda x, y, z: z == 0))
    s += nset("TOPN", select(nodes, lambda x, y, z: z == 3.0))
    s += "*MATERIAL, NAME=ALU\n*ELASTIC\n70000., 0.33\n*DENSITY\n2.7e-9\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=ALU\n"
    s += step("*BOUNDARY\nBASE, 1, 3\nTOPN, 1, 1, 0.002\nTOPN, 3, 3, -0.001\n*DLOAD\nEALL, GRAV, 9810., 0., 1., 0.\n")
    return s


def deck_quad4_pe_iso():
    nodes, elems = quad_grid(8, 4, 4.0, 2.0)
    s = "*HEADING\nquad4 (CPE4) plane strain, isotropic hardening table: load and unload\n"
    s += node_block(nodes) + elem_block("CPE4", elems)
    s += nset("LEFT", select(nodes, lambda x, y: x == 0))
    s += nset("BOT", select(nodes, lambda x, y: y == 0))
    s += nset("RIGHT", select(nodes, lambda x, y: x == 4.0))
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC\n250., 0.\n300., 0.02\n330., 0.1\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n1.\n"
    s += "*BOUNDARY\nLEFT, 1, 1\nBOT, 2, 2\n"
    s += step("*BOUNDARY\nRIGHT, 1, 1, 0.02\n", "*STATIC, DIRECT\n0.1, 1.\n")
    s += step("*BOUNDARY\nRIGHT, 1, 1, 0.0\n", "*STATIC, DIRECT\n0.1, 1.\n")
    return s


def deck_hex8_kinematic():
    nodes, elems = hex_grid(3, 3, 3, 1.0, 1.0, 1.0)
    s = "*HEADING\nhex8 (C3D8) linear kinematic hardening: tension, unloading, compression\n"
    s += node_block(nodes) + elem_block("C3D8", elems)
    s += nset("X0", select(nodes, lambda x, y, z: x == 0))
    s += nset("Y0", select(nodes, lambda x, y, z: y == 0))
    s += nset("Z0", select(nodes, lambda x, y, z: z == 0))
    s += nset("Z1", select(nodes, lambda x, y, z: z == 1.0))
    s += nset("X1Y1", select(nodes, lambda x, y, z: x == 1.0 and y == 1.0))
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC, HARDENING=KINEMATIC\n250., 0.\n2250., 1.\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += "*BOUNDARY\nX0, 1, 1\nY0, 2, 2\nZ0, 3, 3\n"
    # a lateral spring-free but sheared top: the X1Y1 edge is pulled sideways to make the state 3D
    s += step("*BOUNDARY\nZ1, 3, 3, 0.004\nX1Y1, 1, 1, 0.0005\n", "*STATIC, DIRECT\n0.1, 1.\n")
    s += step("*BOUNDARY\nZ1, 3, 3, 0.0\n", "*STATIC, DIRECT\n0.1, 1.\n")
    s += step("*BOUNDARY\nZ1, 3, 3, -0.003\n", "*STATIC, DIRECT\n0.1, 1.\n")
    return s


def deck_hex8_iso_pressure():
    nodes, elems = hex_grid(6, 2, 2, 6.0, 2.0, 2.0)
    top = [e[0] for e in elems if e[2][2] == 1]
    s = "*HEADING\nhex8 (C3D8) isotropic hardening beam under pressure, automatic increments, unloading\n"
    s += node_block(nodes) + elem_block("C3D8", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += "*ELSET, ELSET=TOP\n" + ", ".join(map(str, top)) + "\n"
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC\n200., 0.\n260., 0.05\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*DLOAD\nTOP, P2, 14.\n", "*STATIC\n0.1, 1., 1e-5, 0.1\n")
    s += step("*DLOAD, OP=NEW\n", "*STATIC\n0.25, 1., 1e-5, 0.25\n")
    return s


def deck_quad4_pe_elastic():
    nodes, elems = quad_grid(10, 3, 10.0, 3.0)
    top = [e[0] for e in elems if e[2][1] == 2]
    s = "*HEADING\nquad4 (CPE4) plane strain elastic beam: pressure on the top edge\n"
    s += node_block(nodes) + elem_block("CPE4", elems)
    s += nset("LEFT", select(nodes, lambda x, y: x == 0))
    s += "*ELSET, ELSET=TOP\n" + ", ".join(map(str, top)) + "\n"
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n1.\n"
    s += step("*BOUNDARY\nLEFT, 1, 2\n*DLOAD\nTOP, P3, 5.\n")
    return s


def deck_quad8_pe_hole():
    nodes, elems = quad8_plate_hole(1.0, 4.0, 8, 4)
    eps = 1e-9
    s = "*HEADING\nquad8 (CPE8) plane strain quarter plate with a hole, isotropic hardening: pull and unload\n"
    s += node_block(nodes) + elem_block("CPE8", elems)
    s += nset("SYMX", select(nodes, lambda x, y: abs(x) < eps))
    s += nset("SYMY", select(nodes, lambda x, y: abs(y) < eps))
    s += nset("RIGHT", select(nodes, lambda x, y: abs(x - 4.0) < eps))
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n200000., 0.3\n*PLASTIC\n250., 0.\n300., 0.02\n330., 0.1\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n1.\n"
    s += "*BOUNDARY\nSYMX, 1, 1\nSYMY, 2, 2\n"
    # reaction forces on the constrained edges and stresses at every point, in both steps (a
    # *NODE PRINT in a step replaces CalculiX's earlier ones: step() adds U for NALL)
    out = "".join("*NODE PRINT, NSET=%s\nRF\n" % n for n in ("SYMX", "SYMY", "RIGHT")) + "*EL PRINT, ELSET=EALL\nS\n"
    s += step("*BOUNDARY\nRIGHT, 1, 1, 0.01\n" + out, "*STATIC, DIRECT\n0.1, 1.\n")
    s += step("*BOUNDARY\nRIGHT, 1, 1, 0.0\n" + out, "*STATIC, DIRECT\n0.1, 1.\n")
    return s


def deck_quad8r_cantilever(etype):
    """CPE8R (the 8-node quadrilateral with the reduced 2x2 rule) cantilever: clamped at x = 0, a
    tip force and pressure on the top; two elements through the depth, so the reduced rule's
    spurious mode cannot propagate. (Not CPS8R: CalculiX expands it into a layer of C3D20R,
    which differs from plane stress in bending, by 2.3e-3 on U and 2.7 % on S here, and still
    3.3e-5 and 1.1 % with a layer 500 times thinner; CPS8R is checked by the patch test.)"""
    nodes, elems = quad8_grid(10, 2, 10.0, 2.0)
    top = [e[0] for e in elems if e[2][1] == 1]
    s = "*HEADING\nquad8r (%s) elastic cantilever: tip force and pressure on the top\n" % etype
    s += node_block(nodes) + elem_block(etype, elems)
    s += nset("FIX", select(nodes, lambda x, y: x == 0))
    s += nset("TIP", select(nodes, lambda x, y: x == 10.0 and y == 2.0))
    s += elset("TOP", top)
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n0.5\n"
    s += step("*BOUNDARY\nFIX, 1, 2\n*CLOAD\nTIP, 2, -40.\n*DLOAD\nTOP, P3, 3.\n"
              "*NODE PRINT, NSET=FIX\nRF\n*EL PRINT, ELSET=EALL\nS\n")
    return s


def deck_axisym_cylinder(etype):
    """CAX4 / CAX8 thick-walled cylinder a = 1 <= r <= b = 2 (x radial, y the axis), height 0.5:
    pressure on the inner face (S4), the bottom held axially, an axial *CLOAD on the top's outer
    corner node (CalculiX: the whole ring's force). Reactions and stresses are printed: CalculiX
    prints the forces of its expanded 2-degree sector."""
    nx, ny = (8, 2) if etype == "CAX4" else (4, 1)
    if etype == "CAX4":
        nodes, elems = quad_grid(nx, ny, 1.0, 0.5)
        nodes = [(n[0], n[1] + 1.0, n[2]) for n in nodes]
    else:
        nodes, elems = quad8_grid(nx, ny, 1.0, 0.5, x0=1.0)
    inner = [e[0] for e in elems if e[2][0] == 0]
    s = "*HEADING\naxisymmetric (%s) thick-walled cylinder: internal pressure, axial ring load\n" % etype
    s += node_block(nodes) + elem_block(etype, elems)
    s += nset("BOT", select(nodes, lambda x, y: y == 0))
    s += nset("CORNER", select(nodes, lambda x, y: x == 2.0 and y == 0.5))
    s += elset("INNER", inner)
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += step("*BOUNDARY\nBOT, 2, 2\n*CLOAD\nCORNER, 2, 500.\n*DLOAD\nINNER, P4, 100.\n"
              "*NODE PRINT, NSET=BOT\nRF\n*EL PRINT, ELSET=EALL\nS\n")
    return s


def deck_hex8_bracket_cycle():
    """An L-bracket pulled, released and pulled further by a prescribed displacement, 3 steps of
    5 fixed increments (DIRECT: CalculiX cannot cut back). The first iteration of each step used
    to put the whole increment into the element layer at the loaded face and diverge; the
    linear predictor must run it without a cutback, as CalculiX does."""
    nodes, elems = hex_grid(12, 12, 2, 60.0, 60.0, 10.0)
    elems = [e for e in elems if e[2][0] < 4 or e[2][1] < 4]  # the arms [0,20]x[0,60], [0,60]x[0,20]
    used = {n for e in elems for n in e[1]}
    nodes = [n for n in nodes if n[0] in used]
    elems = [(i + 1, e[1], e[2]) for i, e in enumerate(elems)]
    s = "*HEADING\nhex8 (C3D8) L-bracket, isotropic table: pull, release, pull further by displacement\n"
    s += node_block(nodes) + elem_block("C3D8", elems)
    s += nset("TOP", select(nodes, lambda x, y, z: y == 60.0))
    s += nset("END", select(nodes, lambda x, y, z: x == 60.0))
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*PLASTIC\n250., 0.\n300., 0.02\n400., 0.2\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += "*BOUNDARY\nTOP, 1, 3\n"
    for d in (-1.2, 0.0, -1.8):
        s += step("*BOUNDARY\nEND, 2, 2, %g\n*NODE PRINT, NSET=END, TOTALS=NO\nRF\n" % d,
                  "*STATIC, DIRECT\n0.2, 1.\n")
    return s


def equation(terms):
    """*EQUATION data of one equation: the number of terms, then up to 4 terms per line."""
    rows = [", ".join("%d, %d, %.10g" % t for t in terms[k:k + 4]) for k in range(0, len(terms), 4)]
    return "%d\n%s\n" % (len(terms), "\n".join(rows))


def deck_hex8_equation():
    """A cantilever whose end face is held together by *EQUATION: every end node's u_z follows
    the master corner's (one equation each), their u_y a chain (each node's follows the previous
    one: cascaded equations), and a node of the top face's u_x the mean of its two neighbours (a
    three-term equation with coefficients 2, -1, -1). Loads on the master (z) and on the last,
    dependent node of the chain (y), pressure on the top; U, the forces of the supported and end
    nodes and S are printed."""
    nodes, elems = hex_grid(8, 2, 2, 8.0, 2.0, 2.0)
    top = [e[0] for e in elems if e[2][2] == 1]
    nid = lambda i, j, k: 1 + i + 9 * (j + 3 * k)
    end = sorted(select(nodes, lambda x, y, z: x == 8.0))
    master = nid(8, 0, 0)
    s = "*HEADING\nhex8 (C3D8) elastic cantilever, end face tied by *EQUATION (z to a master, y chained)\n"
    s += node_block(nodes) + elem_block("C3D8", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += nset("TIP", end)
    s += nset("MASTER", [master])
    s += "*ELSET, ELSET=TOP\n" + ", ".join(map(str, top)) + "\n"
    s += "*SURFACE, NAME=STOP\nTOP, S2\n"
    s += "*EQUATION\n"
    others = [n for n in end if n != master]
    for n in others:
        s += equation([(n, 3, 1.0), (master, 3, -1.0)])
    prev = end[0]
    for n in end[1:]:
        s += equation([(n, 2, 1.0), (prev, 2, -1.0)])
        prev = n
    s += equation([(nid(4, 1, 2), 1, 2.0), (nid(3, 1, 2), 1, -1.0), (nid(5, 1, 2), 1, -1.0)])
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += step("*BOUNDARY\nFIX, 1, 3\n*CLOAD\n%d, 3, -200.\n%d, 2, 80.\n*DLOAD\nTOP, P2, 2.\n"
              "*NODE PRINT, NSET=FIX, TOTALS=NO\nRF\n*NODE PRINT, NSET=TIP, TOTALS=NO\nRF\n"
              "*EL PRINT, ELSET=EALL\nS\n" % (master, end[-1]))
    return s


def deck_hex8_equation_iso():
    """The tied cantilever of deck_hex8_equation with an isotropic table, bent through its master
    corner by a prescribed displacement (a boundary condition on an independent DOF, which the
    tied nodes follow) in 5 DIRECT increments, then brought back half way: plastic, unloading."""
    nodes, elems = hex_grid(8, 2, 2, 8.0, 2.0, 2.0)
    nid = lambda i, j, k: 1 + i + 9 * (j + 3 * k)
    end = sorted(select(nodes, lambda x, y, z: x == 8.0))
    master = nid(8, 0, 0)
    s = "*HEADING\nhex8 (C3D8) cantilever, isotropic table, end face tied by *EQUATION, bent by its master\n"
    s += node_block(nodes) + elem_block("C3D8", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += nset("MASTER", [master])
    s += "*EQUATION\n"
    for n in end:
        if n != master:
            s += equation([(n, 3, 1.0), (master, 3, -1.0)])
    prev = end[0]
    for n in end[1:]:
        s += equation([(n, 2, 1.0), (prev, 2, -1.0)])
        prev = n
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*PLASTIC\n250., 0.\n300., 0.02\n400., 0.2\n"
    s += "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += "*BOUNDARY\nFIX, 1, 3\n"
    for d in (-0.4, -0.2):
        s += step("*BOUNDARY\nMASTER, 3, 3, %g\n*NODE PRINT, NSET=FIX, TOTALS=NO\nRF\n"
                  "*NODE PRINT, NSET=MASTER, TOTALS=NO\nRF\n*EL PRINT, ELSET=EALL\nS\n" % d,
                  "*STATIC, DIRECT\n0.2, 1.\n")
    return s


def deck_hex8_transform_rect():
    """A cantilever whose end face is in rectangular axes turned 45 degrees about z
    (*TRANSFORM, TYPE=R: local x along (1, 1, 0), y in the plane of (-1, 2, 0)): local y fixed
    (an oblique direction: an equation), local z (global z) prescribed, a local x load that
    reverses in the second step. The end face prints in both systems."""
    nodes, elems = hex_grid(4, 1, 1, 4.0, 1.0, 1.0)
    s = "*HEADING\nhex8 (C3D8) elastic cantilever, end face in a rectangular *TRANSFORM (45 deg about z)\n"
    s += node_block(nodes) + elem_block("C3D8", elems)
    s += nset("FIX", select(nodes, lambda x, y, z: x == 0))
    s += nset("TIP", select(nodes, lambda x, y, z: x == 4.0))
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += "*TRANSFORM, NSET=TIP, TYPE=R\n1., 1., 0., -1., 2., 0.\n*BOUNDARY\nFIX, 1, 3\nTIP, 2, 2\n"
    s += step("*BOUNDARY\nTIP, 3, 3, 0.002\n*CLOAD\nTIP, 1, 1000.\n"
              "*NODE PRINT, NSET=TIP, GLOBAL=YES, TOTALS=NO\nU, RF\n*NODE PRINT, NSET=FIX, TOTALS=NO\nRF\n"
              "*EL PRINT, ELSET=EALL\nS\n")
    s += step("*CLOAD\nTIP, 1, -500.\n")
    return s


def deck_hex8_transform_cyl():
    """30 degrees of a ring (radii 1 to 2, height 1) about the z axis, fixed at its base; its
    outer face and top in cylindrical axes (*TRANSFORM, TYPE=C): the outer face held radially
    (oblique directions: equations), the top loaded tangentially and axially."""
    nx, ny, nz = 2, 3, 2
    nid = lambda i, j, k: 1 + i + (nx + 1) * (j + (ny + 1) * k)
    nodes = [(nid(i, j, k), (1 + i / nx) * math.cos(math.radians(10 * j)),
              (1 + i / nx) * math.sin(math.radians(10 * j)), 0.5 * k)
             for k in range(nz + 1) for j in range(ny + 1) for i in range(nx + 1)]
    grid, elems = hex_grid(nx, ny, nz, 1.0, 1.0, 1.0)
    base = [nid(i, j, 0) for i in range(nx + 1) for j in range(ny + 1)]
    outer = [nid(nx, j, k) for j in range(ny + 1) for k in range(1, nz + 1)]
    top = [nid(i, j, nz) for i in range(nx + 1) for j in range(ny + 1)]
    s = ("*HEADING\nhex8 (C3D8) elastic ring sector, outer face held radially and top loaded tangentially in a "
         "cylindrical *TRANSFORM\n")
    s += node_block(nodes) + elem_block("C3D8", elems)
    s += nset("BASE", base) + nset("OUTER", outer) + nset("TOP", top) + nset("CYL", set(outer + top))
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n210000., 0.3\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n"
    s += "*TRANSFORM, NSET=CYL, TYPE=C\n0., 0., 0., 0., 0., 3.\n*BOUNDARY\nBASE, 1, 3\nOUTER, 1, 1\n"
    s += step("*CLOAD\nTOP, 2, 100.\nTOP, 3, -50.\n*NODE PRINT, NSET=OUTER, TOTALS=NO\nRF\n"
              "*NODE PRINT, NSET=BASE, GLOBAL=YES, TOTALS=NO\nRF\n*EL PRINT, ELSET=EALL\nS\n")
    return s


DECKS = {
    "hex8_elastic": deck_hex8_elastic,
    "hex8r_elastic": deck_hex8r_elastic,
    "hex8r_iso": deck_hex8r_iso,
    "hex8i_elastic": deck_hex8i_elastic,
    "hex8i_iso": deck_hex8i_iso,
    "hex8_equation": deck_hex8_equation,
    "hex8_equation_iso": deck_hex8_equation_iso,
    "hex8_transform_rect": deck_hex8_transform_rect,
    "hex8_transform_cyl": deck_hex8_transform_cyl,
    "tet10_elastic": deck_tet10_elastic,
    "quad4_pe_elastic": deck_quad4_pe_elastic,
    "quad4_pe_iso": deck_quad4_pe_iso,
    "hex8_kinematic": deck_hex8_kinematic,
    "hex8_iso_pressure": deck_hex8_iso_pressure,
    "quad8_pe_hole": deck_quad8_pe_hole,
    "hex8_bracket_cycle": deck_hex8_bracket_cycle,
    "hex20_elastic": deck_hex20_elastic,
    "hex20r_iso": deck_hex20r_iso,
    "wedge6_elastic": deck_wedge6_elastic,
    "wedge15_elastic": deck_wedge15_elastic,
    "wedge6_iso": deck_wedge6_iso,
    "wedge15_iso": deck_wedge15_iso,
    "quad8r_pe_cantilever": lambda: deck_quad8r_cantilever("CPE8R"),
    "cax4_cylinder": lambda: deck_axisym_cylinder("CAX4"),
    "cax8_cylinder": lambda: deck_axisym_cylinder("CAX8"),
}

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "decks")
    os.makedirs(out, exist_ok=True)
    for name, fn in DECKS.items():
        with open(os.path.join(out, name + ".inp"), "w") as f:
            f.write(fn())
    print("wrote %d decks to %s" % (len(DECKS), out))
