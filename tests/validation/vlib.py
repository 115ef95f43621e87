"""Shared helpers for the ductile validation tests (Python 3, standard library only).

Everything a validation script needs besides its reference solution:
  * command line (--solver PATH --backend cpu|cuda, env DUCTILE_BACKEND) and failure reporting,
  * structured mesh generators (hex8, tet4 = 6 Kuhn tets per hex, tet10, quad4, tri3) with
    optional random distortion of interior nodes (fixed seed),
  * face look-up (CalculiX face numbering) to build surfaces from a geometric predicate,
  * a job builder (plain dicts written as JSON),
  * the runner (ductile-solve in a temporary directory) and readers for summary.json,
    history.csv and the VTU files (read_vtu: binary appended or ASCII; the one VTU reader
    of the tests).

Node and element ids are 1-based and dense: node id k is mesh.nodes[k-1].
"""
import argparse
import csv
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

# ----------------------------------------------------------------------------------------------
# command line, failure reporting


def parse_args(description="", extra=None):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--solver", required=True, help="path to ductile-solve")
    ap.add_argument("--backend", default=os.environ.get("DUCTILE_BACKEND", "cpu"),
                    choices=["cpu", "cuda", "auto"])
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    if extra:
        extra(ap)
    args = ap.parse_args()
    if "DUCTILE_BACKEND" in os.environ and "--backend" not in sys.argv:
        args.backend = os.environ["DUCTILE_BACKEND"]
    return args


class Check:
    """Collects named measurements and failures; finish() prints one summary line and exits."""

    def __init__(self, name):
        self.name = name
        self.failures = []
        self.measured = []
        self.t0 = time.time()

    def record(self, label, value):
        self.measured.append((label, value))

    def expect(self, cond, msg):
        if not cond:
            self.failures.append(msg)
        return cond

    def le(self, label, value, tol):
        """Record value and require value <= tol."""
        self.record(label, value)
        if not (value <= tol):  # also catches NaN
            self.failures.append("%s = %.3e exceeds tolerance %.1e" % (label, value, tol))

    def fail_now(self, msg):
        self.failures.append(msg)
        self.finish()

    def finish(self):
        meas = ", ".join("%s=%s" % (k, fmt(v)) for k, v in self.measured)
        dt = time.time() - self.t0
        if self.failures:
            print("FAIL %s (%.1f s): %s" % (self.name, dt, meas))
            for f in self.failures:
                print("  FAILED: " + f)
            sys.exit(1)
        print("PASS %s (%.1f s): %s" % (self.name, dt, meas))
        sys.exit(0)


def fmt(v):
    if isinstance(v, float):
        return "%.3e" % v
    return str(v)


# ----------------------------------------------------------------------------------------------
# meshes


class Mesh:
    """nodes: list of coordinate tuples (id = index+1); elems: list of (type, [node ids])."""

    def __init__(self, dim):
        self.dim = dim
        self.nodes = []
        self.elems = []

    def add_node(self, *x):
        self.nodes.append(tuple(float(c) for c in x))
        return len(self.nodes)

    def node_ids(self, pred):
        return [i + 1 for i, x in enumerate(self.nodes) if pred(*x)]

    def elem_ids(self, pred=None):
        out = []
        for e, (t, conn) in enumerate(self.elems):
            c = centroid(self, conn[:CORNERS[t]])
            if pred is None or pred(*c):
                out.append(e + 1)
        return out

    def faces(self, pred):
        """[[elem id, "Sk"]] of every element face whose corner nodes all satisfy pred(x, y[, z])."""
        out = []
        for e, (t, conn) in enumerate(self.elems):
            for k, fn in enumerate(FACES[t]):
                if all(pred(*self.nodes[conn[a - 1] - 1]) for a in fn):
                    out.append([e + 1, "S%d" % (k + 1)])
        return out

    def boundary_nodes(self):
        """Nodes on element faces used by exactly one element (corners and midsides)."""
        count = {}
        for e, (t, conn) in enumerate(self.elems):
            for fn in FACES[t]:
                key = tuple(sorted(conn[a - 1] for a in fn))
                count[key] = count.get(key, 0) + 1
        bnd = set()
        for e, (t, conn) in enumerate(self.elems):
            for k, fn in enumerate(FACES[t]):
                if count[tuple(sorted(conn[a - 1] for a in fn))] == 1:
                    bnd.update(conn[a - 1] for a in FACES_ALL[t][k])
        return sorted(bnd)

    def to_json(self):
        nodes = [[i + 1] + [float(c) for c in x[:self.dim]] for i, x in enumerate(self.nodes)]
        blocks = {}
        for e, (t, conn) in enumerate(self.elems):
            blocks.setdefault(t, []).append([e + 1] + list(conn))
        return nodes, [{"type": t, "connectivity": c} for t, c in blocks.items()]


CORNERS = {"hex8": 8, "tet4": 4, "tet10": 4, "quad4": 4, "tri3": 3, "quad8": 4, "quad8r": 4, "quad9": 4,
           "quad16": 4, "hex20": 8, "hex20r": 8, "wedge6": 6, "wedge15": 6}
# CalculiX face numbering (corner nodes, 1-based local numbers).
FACES = {
    "hex8": [(1, 2, 3, 4), (5, 8, 7, 6), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 8, 4), (4, 8, 5, 1)],
    "tet4": [(1, 2, 3), (1, 4, 2), (2, 4, 3), (3, 4, 1)],
    "tet10": [(1, 2, 3), (1, 4, 2), (2, 4, 3), (3, 4, 1)],
    "quad4": [(1, 2), (2, 3), (3, 4), (4, 1)],
    "tri3": [(1, 2), (2, 3), (3, 1)],
}
for _t in ("quad8", "quad8r", "quad9", "quad16"):
    FACES[_t] = FACES["quad4"]
FACES["hex20"] = FACES["hex20r"] = FACES["hex8"]
FACES["wedge6"] = FACES["wedge15"] = [(1, 2, 3), (4, 6, 5), (1, 4, 5, 2), (2, 5, 6, 3), (3, 6, 4, 1)]
# Faces with their midside nodes (for boundary node detection).
FACES_ALL = dict(FACES)
FACES_ALL["tet10"] = [(1, 2, 3, 5, 6, 7), (1, 4, 2, 8, 9, 5), (2, 4, 3, 9, 10, 6), (3, 4, 1, 10, 8, 7)]
FACES_ALL["quad8"] = FACES_ALL["quad8r"] = FACES_ALL["quad9"] = [(1, 2, 5), (2, 3, 6), (3, 4, 7), (4, 1, 8)]
FACES_ALL["quad16"] = [(1, 2, 5, 6), (2, 3, 7, 8), (3, 4, 9, 10), (4, 1, 11, 12)]
FACES_ALL["hex20"] = FACES_ALL["hex20r"] = [(1, 2, 3, 4, 9, 10, 11, 12), (5, 8, 7, 6, 16, 15, 14, 13),
                                            (1, 5, 6, 2, 17, 13, 18, 9), (2, 6, 7, 3, 18, 14, 19, 10),
                                            (3, 7, 8, 4, 19, 15, 20, 11), (4, 8, 5, 1, 20, 16, 17, 12)]
FACES_ALL["wedge15"] = [(1, 2, 3, 7, 8, 9), (4, 6, 5, 12, 11, 10), (1, 4, 5, 2, 13, 10, 14, 7),
                        (2, 5, 6, 3, 14, 11, 15, 8), (3, 6, 4, 1, 15, 12, 13, 9)]
# The 20-node hexahedra's mid-edge nodes 9..20 (CalculiX C3D20): on these corner pairs.
HEX20_EDGES = [(1, 2), (2, 3), (3, 4), (4, 1), (5, 6), (6, 7), (7, 8), (8, 5), (1, 5), (2, 6), (3, 7), (4, 8)]
# wedge15's mid-edge nodes 7..15 (CalculiX C3D15): on these corner pairs.
WEDGE15_EDGES = [(1, 2), (2, 3), (3, 1), (4, 5), (5, 6), (6, 4), (1, 4), (2, 5), (3, 6)]

# Local nodes of the higher-order quadrilaterals as (i, j) on the p + 1 points per direction
# (solver/element/element.h: corners, edge nodes edge by edge in the edge's direction, interior;
# quad8 is quad9 without its centre).
QUAD_ORDER = {"quad4": 1, "quad8": 2, "quad8r": 2, "quad9": 2, "quad16": 3}
QUAD_IJ = {
    "quad4": [(0, 0), (1, 0), (1, 1), (0, 1)],
    "quad9": [(0, 0), (2, 0), (2, 2), (0, 2), (1, 0), (2, 1), (1, 2), (0, 1), (1, 1)],
    "quad16": [(0, 0), (3, 0), (3, 3), (0, 3), (1, 0), (2, 0), (3, 1), (3, 2), (2, 3), (1, 3), (0, 2), (0, 1),
               (1, 1), (2, 1), (2, 2), (1, 2)],
}
QUAD_IJ["quad8"] = QUAD_IJ["quad8r"] = QUAD_IJ["quad9"][:8]


def centroid(mesh, conn):
    n = len(conn)
    d = len(mesh.nodes[0])
    return tuple(sum(mesh.nodes[a - 1][k] for a in conn) / n for k in range(d))


def _grid_nodes(mesh, nx, ny, nz, lx, ly, lz, x0=(0.0, 0.0, 0.0)):
    def nid(i, j, k):
        return 1 + i + (nx + 1) * (j + (ny + 1) * k)

    for k in range(nz + 1):
        for j in range(ny + 1):
            for i in range(nx + 1):
                mesh.add_node(x0[0] + lx * i / nx, x0[1] + ly * j / ny, x0[2] + lz * k / nz)
    return nid


def box_hex8(nx, ny, nz, lx=1.0, ly=1.0, lz=1.0):
    m = Mesh(3)
    nid = _grid_nodes(m, nx, ny, nz, lx, ly, lz)
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                m.elems.append(("hex8", [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                                         nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1),
                                         nid(i, j + 1, k + 1)]))
    return m


def tet_volume(p):
    a = [p[1][k] - p[0][k] for k in range(3)]
    b = [p[2][k] - p[0][k] for k in range(3)]
    c = [p[3][k] - p[0][k] for k in range(3)]
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0


def box_tet4(nx, ny, nz, lx=1.0, ly=1.0, lz=1.0):
    """Each hex split into the 6 Kuhn tetrahedra around its (0,0,0)-(1,1,1) diagonal: conforming."""
    m = Mesh(3)
    nid = _grid_nodes(m, nx, ny, nz, lx, ly, lz)
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                for p in perms:
                    c = [i, j, k]
                    conn = [nid(*c)]
                    for ax in p:
                        c[ax] += 1
                        conn.append(nid(*c))
                    if tet_volume([m.nodes[a - 1] for a in conn]) < 0:
                        conn[1], conn[2] = conn[2], conn[1]
                    m.elems.append(("tet4", conn))
    return m


TET10_EDGES = [(1, 2), (2, 3), (3, 1), (1, 4), (2, 4), (3, 4)]  # midsides 5..10 (CalculiX)


def tet4_to_tet10(m4):
    """Add straight-edge midside nodes at the current (possibly distorted) edge midpoints."""
    m = Mesh(3)
    m.nodes = list(m4.nodes)
    mid = {}
    for t, conn in m4.elems:
        c10 = list(conn)
        for a, b in TET10_EDGES:
            na, nb = conn[a - 1], conn[b - 1]
            key = (min(na, nb), max(na, nb))
            if key not in mid:
                pa, pb = m.nodes[na - 1], m.nodes[nb - 1]
                mid[key] = m.add_node(*[(pa[k] + pb[k]) / 2 for k in range(3)])
            c10.append(mid[key])
        m.elems.append(("tet10", c10))
    return m


def hex8_to_hex20(m8, etype="hex20"):
    """The hex8 mesh m8 as hex20 (or hex20r): mid-edge nodes at the current (possibly distorted)
    edge midpoints, shared between neighbours. Element k keeps m8's element k."""
    m = Mesh(3)
    m.nodes = list(m8.nodes)
    mid = {}
    for t, conn in m8.elems:
        c20 = list(conn)
        for a, b in HEX20_EDGES:
            na, nb = conn[a - 1], conn[b - 1]
            key = (min(na, nb), max(na, nb))
            if key not in mid:
                pa, pb = m.nodes[na - 1], m.nodes[nb - 1]
                mid[key] = m.add_node(*[(pa[k] + pb[k]) / 2 for k in range(3)])
            c20.append(mid[key])
        m.elems.append((etype, c20))
    return m


def hex8_to_wedge6(m8):
    """Each hexahedron of m8 split into two wedges along its diagonal plane through edges 1-5
    and 3-7: (1, 2, 3, 5, 6, 7) and (1, 3, 4, 5, 7, 8). Every hexahedron is cut the same way, so
    the triangles of neighbours match (conforming)."""
    m = Mesh(3)
    m.nodes = list(m8.nodes)
    for t, c in m8.elems:
        m.elems.append(("wedge6", [c[0], c[1], c[2], c[4], c[5], c[6]]))
        m.elems.append(("wedge6", [c[0], c[2], c[3], c[4], c[6], c[7]]))
    return m


def wedge6_to_wedge15(m6):
    """The wedge6 mesh m6 as wedge15: mid-edge nodes at the current edge midpoints, shared."""
    m = Mesh(3)
    m.nodes = list(m6.nodes)
    mid = {}
    for t, conn in m6.elems:
        c15 = list(conn)
        for a, b in WEDGE15_EDGES:
            na, nb = conn[a - 1], conn[b - 1]
            key = (min(na, nb), max(na, nb))
            if key not in mid:
                pa, pb = m.nodes[na - 1], m.nodes[nb - 1]
                mid[key] = m.add_node(*[(pa[k] + pb[k]) / 2 for k in range(3)])
            c15.append(mid[key])
        m.elems.append(("wedge15", c15))
    return m


def box_hex20(nx, ny, nz, lx=1.0, ly=1.0, lz=1.0, etype="hex20"):
    return hex8_to_hex20(box_hex8(nx, ny, nz, lx, ly, lz), etype)


def rect_quad4(nx, ny, lx=1.0, ly=1.0):
    m = Mesh(2)

    def nid(i, j):
        return 1 + i + (nx + 1) * j

    for j in range(ny + 1):
        for i in range(nx + 1):
            m.add_node(lx * i / nx, ly * j / ny)
    for j in range(ny):
        for i in range(nx):
            m.elems.append(("quad4", [nid(i, j), nid(i + 1, j), nid(i + 1, j + 1), nid(i, j + 1)]))
    return m


def quad_elevate(m4, etype, place=None):
    """The quad4 mesh m4 as quad8, quad9 or quad16: nodes at fractions (i/p, j/p) of each element,
    placed by place(corners, s, t) (s, t in [0, 1]; default: the bilinear map of the corners, so
    edges stay straight), edge nodes shared between neighbours. Element k keeps m4's element k."""
    p, ij = QUAD_ORDER[etype], QUAD_IJ[etype]
    if place is None:
        def place(X, s, t):
            w = ((1 - s) * (1 - t), s * (1 - t), s * t, (1 - s) * t)
            return tuple(sum(w[a] * X[a][k] for a in range(4)) for k in range(len(X[0])))
    m = Mesh(m4.dim)
    m.nodes = list(m4.nodes)
    shared = {}
    for t4, conn4 in m4.elems:
        X = [m4.nodes[a - 1] for a in conn4]
        conn = []
        for (i, j) in ij:
            corner = {(0, 0): 0, (p, 0): 1, (p, p): 2, (0, p): 3}.get((i, j))
            if corner is not None:
                conn.append(conn4[corner])
                continue
            key = None
            if j in (0, p) or i in (0, p):  # on an edge: key (low corner, high corner, steps from low)
                a, b, k = ((0, 1, i) if j == 0 else (3, 2, i) if j == p else (0, 3, j) if i == 0 else (1, 2, j))
                lo, hi = conn4[a], conn4[b]
                key = (lo, hi, k) if lo < hi else (hi, lo, p - k)
            if key is not None and key in shared:
                conn.append(shared[key])
                continue
            nid = m.add_node(*place(X, i / p, j / p))
            if key is not None:
                shared[key] = nid
            conn.append(nid)
        m.elems.append((etype, conn))
    return m


def quad_to_tri3(mq):
    m = Mesh(2)
    m.nodes = list(mq.nodes)
    for n, (t, c) in enumerate(mq.elems):
        if n % 2 == 0:  # alternate the diagonal
            m.elems += [("tri3", [c[0], c[1], c[2]]), ("tri3", [c[0], c[2], c[3]])]
        else:
            m.elems += [("tri3", [c[0], c[1], c[3]]), ("tri3", [c[1], c[2], c[3]])]
    return m


def distort(mesh, amount, seed, boundary):
    """Move every node not in `boundary` by a uniform random vector in [-amount, amount]^dim."""
    rng = random.Random(seed)
    bset = set(boundary)
    for i in range(len(mesh.nodes)):
        d = [rng.uniform(-amount, amount) for _ in range(mesh.dim)]
        if i + 1 in bset:
            continue
        x = list(mesh.nodes[i])
        for k in range(mesh.dim):
            x[k] += d[k]
        mesh.nodes[i] = tuple(x)


def element_measure(mesh, t, conn):
    """Signed volume (3D, tets) or area (2D) sanity check; for hexahedra and quads the min corner measure."""
    X = [mesh.nodes[a - 1] for a in conn]
    if t in ("tet4", "tet10"):
        return tet_volume(X[:4])
    if t == "tri3":
        return 0.5 * ((X[1][0] - X[0][0]) * (X[2][1] - X[0][1]) - (X[2][0] - X[0][0]) * (X[1][1] - X[0][1]))
    if t in ("quad4", "quad8", "quad8r", "quad9", "quad16"):  # the corners' measure
        v = []
        for a in range(4):
            p, q, r = X[a], X[(a + 1) % 4], X[(a + 3) % 4]
            v.append((q[0] - p[0]) * (r[1] - p[1]) - (r[0] - p[0]) * (q[1] - p[1]))
        return min(v)
    if t in ("hex8", "hex20", "hex20r"):  # corner tetrahedra: all positive for a valid hex
        nb = {0: (1, 3, 4), 1: (2, 0, 5), 2: (3, 1, 6), 3: (0, 2, 7), 4: (7, 5, 0), 5: (4, 6, 1),
              6: (5, 7, 2), 7: (6, 4, 3)}
        return min(tet_volume([X[a], X[nb[a][0]], X[nb[a][1]], X[nb[a][2]]]) for a in range(8))
    if t in ("wedge6", "wedge15"):  # corner tetrahedra, as for the hexahedra
        nb = {0: (1, 2, 3), 1: (2, 0, 4), 2: (0, 1, 5), 3: (5, 4, 0), 4: (3, 5, 1), 5: (4, 3, 2)}
        return min(tet_volume([X[a], X[nb[a][0]], X[nb[a][1]], X[nb[a][2]]]) for a in range(6))
    raise ValueError(t)


# ----------------------------------------------------------------------------------------------
# job builder


def job(mesh, materials, sections, steps, node_sets=None, element_sets=None, surfaces=None,
        solver=None, output=None, title="validation"):
    nodes, blocks = mesh.to_json()
    mj = {"nodes": nodes, "elements": blocks}
    if node_sets:
        mj["node_sets"] = node_sets
    mj["element_sets"] = element_sets or {"all": {"generate": [1, len(mesh.elems), 1]}}
    if surfaces:
        mj["surfaces"] = surfaces
    j = {"ductile": 1, "title": title, "mesh": mj, "materials": materials, "sections": sections,
         "steps": steps}
    if solver:
        j["solver"] = solver
    if output:
        j["output"] = output
    return j


def material(name="mat", E=200000.0, nu=0.3, plastic=None):
    m = {"name": name, "elastic": {"E": E, "nu": nu}}
    if plastic:
        m["plastic"] = plastic
    return m


TIGHT_SOLVER = {"newton": {"max_iterations": 10, "force_tolerance": 1e-12},
                "linear": {"tolerance": 1e-14, "max_iterations": 100000}}

# ----------------------------------------------------------------------------------------------
# running and reading results


class Result:
    def __init__(self, outdir, rc, wall, stdout):
        self.outdir = outdir
        self.rc = rc
        self.wall = wall
        self.stdout = stdout
        p = os.path.join(outdir, "summary.json")
        self.summary = json.load(open(p)) if os.path.exists(p) else None
        p = os.path.join(outdir, "history.csv")
        self.history = []
        if os.path.exists(p):
            with open(p) as f:
                for row in csv.DictReader(f):
                    self.history.append({k: (float(v) if k not in ("step", "increment") else int(v))
                                         for k, v in row.items()})

    def vtu_files(self):
        """VTU file names in increment order (summary files.vtu)."""
        return list(self.summary.get("files", {}).get("vtu", [])) if self.summary else []

    def vtu(self, name_or_index):
        if isinstance(name_or_index, int):
            name_or_index = self.vtu_files()[name_or_index]
        return read_vtu(os.path.join(self.outdir, name_or_index))

    def step_end_vtus(self):
        """{step (1-based): VTU of its last increment} using summary increments[] order."""
        files = self.vtu_files()
        incs = self.summary["increments"]
        out = {}
        if len(files) != len(incs):
            raise RuntimeError("expected one VTU per increment (output every 1)")
        for f, inc in zip(files, incs):
            out[inc["step"]] = f
        return out


class TempDir:
    def __init__(self, keep=False):
        self.keep = keep
        self.path = tempfile.mkdtemp(prefix="ductile-val-")

    def __enter__(self):
        return self.path

    def __exit__(self, *a):
        if not self.keep:
            shutil.rmtree(self.path, ignore_errors=True)
        else:
            print("kept " + self.path)


DEFAULT_THREADS = os.environ.get("DUCTILE_VAL_THREADS", "1")


def run(args, jobdict, workdir, name, threads=None, timeout=600, extra=None):
    """Write NAME.json into workdir and run the solver into workdir/NAME.out.

    threads=None runs with --threads $DUCTILE_VAL_THREADS (default 1): ctest runs tests in
    parallel on small CI machines, and OpenMP threads competing for busy cores can make a run
    10-20x slower. Threading itself is covered by val_determinism (1 vs 2 threads, bit-identical)."""
    if threads is None and DEFAULT_THREADS not in ("", "0", "default"):
        threads = DEFAULT_THREADS
    jp = os.path.join(workdir, name + ".json")
    with open(jp, "w") as f:
        json.dump(jobdict, f, separators=(",", ":"))
    out = os.path.join(workdir, name + ".out")
    cmd = [args.solver, jp, "-o", out, "--backend", args.backend, "--quiet"]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    if extra:
        cmd += extra
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    wall = time.time() - t0
    res = Result(out, p.returncode, wall, p.stdout.decode("utf-8", "replace"))
    if args.backend != "cpu" and os.environ.get("DUCTILE_CROSS_CHECK_CPU") == "1":
        cross_check_cpu(cmd, out, res, timeout)
    return res


# Agreement with the CPU backend: displacements and stresses within newton.force_tolerance's
# default (1e-6) relative to their largest magnitude, Newton iterations per increment within one.
# The backends sum in different orders, and the linear predictor of a displacement-driven
# increment differentiates f_int by a finite step (newton.c, eps 1e-6), which magnifies those
# last-digit differences about a millionfold: the two runs then take different, equally valid
# Newton paths, and agree to the Newton tolerance rather than to rounding (a triaxial
# Mohr-Coulomb case differs by 7e-8 in U; a hardening case converges one increment in 3
# iterations on one backend and 2 on the other).
CROSS_TOL_U = 1e-6
CROSS_TOL_S = 1e-6
# The least stress scale of the S comparison: a test whose stresses are zero by design (a body
# that relaxes completely) sets it to a stress of its problem times about 1e-9, so that two
# backends' round-off of zero is not compared with itself.
CROSS_S_FLOOR = 0.0


def _max_rel_diff(a, b, floor=0.0):
    flat_a = [v for t in a for v in t]
    flat_b = [v for t in b for v in t]
    scale = max([abs(v) for v in flat_a] + [floor, 1e-300])
    return max([abs(x - y) for x, y in zip(flat_a, flat_b)] + [0.0]) / scale


def cross_check_cpu(cmd, out, res, timeout):
    """Run the same job on the CPU backend and compare it with res (set DUCTILE_CROSS_CHECK_CPU=1).
    Exits the script with status 1 on disagreement; prints one line otherwise."""
    ref_out = out + ".cpu"
    ref_cmd = list(cmd)
    ref_cmd[ref_cmd.index("-o") + 1] = ref_out
    ref_cmd[ref_cmd.index("--backend") + 1] = "cpu"
    p = subprocess.run(ref_cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    ref = Result(ref_out, p.returncode, 0.0, "")
    name = os.path.basename(out)
    problems = []
    if ref.rc != res.rc:
        problems.append("exit code %d on %s vs %d on cpu" % (res.rc, cmd[cmd.index("--backend") + 1], ref.rc))
    elif res.rc in (0, 2) and ref.summary and res.summary:
        # Converged increments are compared also when both runs stop (e.g. above a limit load).
        its = [r["newton_iterations"] for r in res.history]
        ref_its = [r["newton_iterations"] for r in ref.history]
        # One iteration of slack per increment (CROSS_TOL_U above); each difference is printed.
        slack = 1
        flips = [(k + 1, a, b) for k, (a, b) in enumerate(zip(its, ref_its)) if a != b]
        if len(its) != len(ref_its) or any(abs(a - b) > slack for _, a, b in flips):
            problems.append("Newton iterations per increment differ: %s vs cpu %s" % (its, ref_its))
        for k, a, b in flips:
            print("note: increment %d took %d Newton iterations vs %d on cpu"
                  % (k, a, b))
        du = ds = 0.0
        files = ref.vtu_files()
        for f in files:
            a, b = read_vtu(os.path.join(out, f)), read_vtu(os.path.join(ref_out, f))
            du = max(du, _max_rel_diff(b["point"]["U"], a["point"]["U"]))
            if "S" in a["point"]:
                ds = max(ds, _max_rel_diff(b["point"]["S"], a["point"]["S"], CROSS_S_FLOOR))
        if not files:  # no VTU output: node-set mean displacements and reactions of the last increment
            sets = sorted(ref.summary.get("node_sets", {}))
            du = _max_rel_diff([tuple(ref.summary["node_sets"][k]["U_mean"]) for k in sets],
                               [tuple(res.summary["node_sets"][k]["U_mean"]) for k in sets])
            ds = _max_rel_diff([tuple(ref.summary["node_sets"][k]["RF"]) for k in sets],
                               [tuple(res.summary["node_sets"][k]["RF"]) for k in sets])
        what = "VTU fields" if files else "node-set U_mean (U) and RF (S column)"
        if du > CROSS_TOL_U or ds > CROSS_TOL_S:
            problems.append("%s differ from cpu: U %.2e (tol %g), S %.2e (tol %g)" % (what, du, CROSS_TOL_U, ds, CROSS_TOL_S))
        else:
            print("cross-check %s vs cpu (exit %d, %d increments, %s): U %.1e, S %.1e, Newton iterations %s"
                  % (name, res.rc, len(its), what, du, ds, "equal" if not flips else "within 1"))
    if problems:
        print("FAILED cross-check of %s against the cpu backend: %s" % (name, "; ".join(problems)))
        sys.exit(1)


def require_ok(chk, res, what):
    if res.rc != 0:
        chk.fail_now("%s: ductile-solve exited with %d (expected 0): %s" % (what, res.rc, res.stdout[-2000:]))


_VTK_TYPES = {"Float64": "d", "Float32": "f", "Int64": "q", "Int32": "i", "UInt64": "Q",
              "UInt32": "I", "Int8": "b", "UInt8": "B"}


def read_vtu_arrays(path):
    """The VTK XML file at path as (root, values): root is the XML header (ElementTree, the
    appended data cut off) and values maps each DataArray element to its flat list of numbers.

    The one reader of our VTU files (solver/io/output_vtu.c: binary appended, raw encoding,
    header_type UInt64, little-endian, as ParaView writes them); ASCII arrays are read too.
    Checks what a VTK reader relies on: each array's byte count matches its type, its offset
    points at its block, and the blocks tile the appended data exactly."""
    import array as _array
    import struct as _struct
    with open(path, "rb") as f:
        data = f.read()
    tag = data.find(b"<AppendedData")
    if tag < 0:
        root, base, raw_end = ET.fromstring(data), None, None
    else:
        start = data.index(b">", tag) + 1
        under = data.index(b"_", start)
        if data[start:under].strip():
            raise ValueError("%s: junk before the appended data marker" % path)
        raw_end = data.rindex(b"</AppendedData>")
        root = ET.fromstring(data[:tag] + b"</VTKFile>")
        base = under + 1
        if root.get("header_type") != "UInt64" or root.get("byte_order") != "LittleEndian":
            raise ValueError("%s: expected header_type UInt64, LittleEndian" % path)
        head = ET.fromstring(data[tag:start] + b"</AppendedData>")
        if head.get("encoding") != "raw":
            raise ValueError("%s: appended data encoding %r is not supported" % (path, head.get("encoding")))
    values, blocks = {}, []
    for da in root.iter("DataArray"):
        code = _VTK_TYPES[da.get("type")]
        fmt = da.get("format", "ascii")
        if fmt == "ascii":
            conv = float if code in "df" else int
            values[da] = [conv(v) for v in (da.text or "").split()]
            continue
        if fmt != "appended" or base is None:
            raise ValueError("%s: DataArray %s has format %r" % (path, da.get("Name"), fmt))
        off = base + int(da.get("offset"))
        (nbytes,) = _struct.unpack_from("<Q", data, off)
        arr = _array.array(code)
        if nbytes % arr.itemsize:
            raise ValueError("%s: %s has %d bytes, not a multiple of %d" % (path, da.get("Name"), nbytes, arr.itemsize))
        arr.frombytes(data[off + 8:off + 8 + nbytes])
        if sys.byteorder != "little":
            arr.byteswap()
        values[da] = arr.tolist()
        blocks.append((off, off + 8 + nbytes))
    if base is not None:
        blocks.sort()
        pos = base
        for a, b in blocks:
            if a != pos:
                raise ValueError("%s: appended block at %d, expected %d" % (path, a - base, pos - base))
            pos = b
        if data[pos:raw_end].strip() or pos > raw_end:
            raise ValueError("%s: the appended data does not end after the last array" % path)
    return root, values


def read_vtu(path):
    """{'point': {name: [tuple per node]}, 'cell': {name: [tuple per cell]}, 'points': [...],
    'cells': {'connectivity', 'offsets', 'types': flat lists}, 'field': {name: value}} from a
    VTK XML UnstructuredGrid (read_vtu_arrays)."""
    root, values = read_vtu_arrays(path)
    piece = root.find("UnstructuredGrid/Piece")
    out = {"point": {}, "cell": {}, "field": {}, "cells": {}}

    def arr(da):
        nc = int(da.get("NumberOfComponents", "1"))
        vals = values[da]
        return [tuple(vals[i:i + nc]) for i in range(0, len(vals), nc)]

    for da in piece.findall("PointData/DataArray"):
        out["point"][da.get("Name")] = arr(da)
    for da in piece.findall("CellData/DataArray"):
        out["cell"][da.get("Name")] = arr(da)
    out["points"] = arr(piece.find("Points/DataArray"))
    for da in piece.findall("Cells/DataArray"):
        out["cells"][da.get("Name")] = values[da]
    fd = root.find("UnstructuredGrid/FieldData")
    if fd is not None:
        for da in fd.findall("DataArray"):
            out["field"][da.get("Name")] = values[da][0]
    return out


# ----------------------------------------------------------------------------------------------
# small linear algebra / mechanics helpers


def iso_stiffness(E, nu):
    """6x6 isotropic D (Voigt xx,yy,zz,xy,xz,yz; engineering shear strain)."""
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    G = E / (2 * (1 + nu))
    D = [[0.0] * 6 for _ in range(6)]
    for i in range(3):
        for j in range(3):
            D[i][j] = lam + (2 * G if i == j else 0.0)
        D[i + 3][i + 3] = G
    return D


def matvec(A, x):
    return [sum(a * b for a, b in zip(row, x)) for row in A]


def mises(s):
    sxx, syy, szz, sxy, sxz, syz = s
    return math.sqrt(0.5 * ((sxx - syy) ** 2 + (syy - szz) ** 2 + (szz - sxx) ** 2)
                     + 3 * (sxy ** 2 + sxz ** 2 + syz ** 2))


def relerr(a, b, scale=None):
    s = abs(b) if scale is None else scale
    return abs(a - b) / s if s > 0 else abs(a - b)


# ----------------------------------------------------------------------------------------------
# polar geometry (added for val_wellbore)


def graded_radii(a, b, nr, ratio):
    """nr + 1 radii from a to b, element sizes in geometric progression (size_{k+1} = ratio size_k)."""
    if abs(ratio - 1.0) < 1e-14:
        return [a + (b - a) * i / nr for i in range(nr + 1)]
    h1 = (b - a) * (ratio - 1.0) / (ratio ** nr - 1.0)
    r = [a]
    for i in range(nr):
        r.append(r[-1] + h1 * ratio ** i)
    r[-1] = b
    return r


def quarter_annulus_quad4(radii, nt):
    """Quarter annulus 0 <= theta <= pi/2 between radii[0] and radii[-1] (structured polar quad4:
    len(radii) - 1 rings, nt elements around). Nodes on theta = 0 have y = 0 and on theta = pi/2
    x = 0 exactly. Element (ring i, sector j) is elems[j * nr + i] (0-based), node (i, j) is
    nodes[j * (nr + 1) + i]."""
    nr = len(radii) - 1
    m = Mesh(2)

    def nid(i, j):
        return 1 + i + (nr + 1) * j

    for j in range(nt + 1):
        th = 0.5 * math.pi * j / nt
        for r in radii:
            x, y = r * math.cos(th), r * math.sin(th)
            if j == nt:
                x = 0.0
            if j == 0:
                y = 0.0
            m.add_node(x, y)
    for j in range(nt):
        for i in range(nr):
            m.elems.append(("quad4", [nid(i, j), nid(i + 1, j), nid(i + 1, j + 1), nid(i, j + 1)]))
    return m


def quarter_annulus(radii, nt, etype="quad4"):
    """quarter_annulus_quad4 in any quadrilateral type, the nodes of the higher-order ones on the
    exact polar map (equal steps of r and theta inside each element, so curved edges are arcs)."""
    m4 = quarter_annulus_quad4(radii, nt)
    if etype == "quad4":
        return m4

    def place(X, s, t):
        r0, r1 = math.hypot(*X[0]), math.hypot(*X[1])
        t0, t1 = math.atan2(X[0][1], X[0][0]), math.atan2(X[3][1], X[3][0])
        r, th = r0 + s * (r1 - r0), t0 + t * (t1 - t0)
        x, y = r * math.cos(th), r * math.sin(th)
        return (0.0 if abs(th - 0.5 * math.pi) < 1e-12 else x, 0.0 if th == 0.0 else y)

    return quad_elevate(m4, etype, place)


def polar_stress(S, x, y):
    """(sigma_rr, sigma_tt, sigma_rt) at (x, y) from a Voigt stress (xx, yy, zz, xy, ...)."""
    r = math.hypot(x, y)
    c, s = x / r, y / r
    srr = S[0] * c * c + S[1] * s * s + 2 * S[3] * s * c
    stt = S[0] * s * s + S[1] * c * c - 2 * S[3] * s * c
    srt = (S[1] - S[0]) * s * c + S[3] * (c * c - s * s)
    return srr, stt, srt
