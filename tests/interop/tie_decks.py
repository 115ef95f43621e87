#!/usr/bin/env python3
"""*TIE, node surfaces and *DLOAD PxNP against exact answers (and CalculiX when ccx is on PATH).

The tied patch test: two hex8 blocks of different density, a coarse lower one [0,1]^2 x [0,1]
(2 x 2 x 2 elements, the master: its top faces S2) and a fine upper one [0,1]^2 x [1,2] (3 x 3 x 3
elements, its own nodes; the slave: its bottom nodes or faces S1), on symmetry supports (u_x = 0
on x = 0, u_y = 0 on y = 0, u_z = 0 on z = 0) and pulled by a pressure of -100 on the top faces.
The bilinear master faces interpolate a linear field exactly, so the tied pair must reproduce the
uniform uniaxial state of one block: S = (0, 0, 100, 0, 0, 0) at every point and
U = 100 / E (-nu x, -nu y, z), to 5e-7 of the largest value in results.dat (its 7 significant
digits) and to 1e-9 in the VTU (the solve's rounding). This holds for nested meshes (4 slave
elements on 2 master ones a side, used here): the slave nodal forces of a uniform traction,
carried to the master nodes by the face shape functions, are then the master's own consistent
forces. With 3 on 2 they are not (an interior master node receives 5/18 of a side's force, not
1/4), and the node-to-surface tie shows about 15% stress error beside the interface, in ductile
and CalculiX alike: the not_nested case checks that both agree there. Cases:

  node_set    the slave a node surface of one node set (*SURFACE, TYPE=NODE; CalculiX's syntax);
              the slave nodes on x = 0 and y = 0 are held there, so they get no tie equation in
              that direction (CalculiX's rule): the warning says so;
  shared      a node of the master surface among the slave nodes needs no equation (u = u):
              warned, and the results are node_set's;
  node_ids    the node surface listed by node numbers, one a line, and one set line;
  faces       the slave an element-face surface (the upper block's S1 faces);
  adjust      the upper block lifted by a gap of 0.002 (below the default tolerance, 2.5% of the
              master's edge 0.5): ADJUST (the default) moves the slave nodes onto the master, and
              U = 100/E (-nu x, -nu y, z) holds at the moved coordinates; with ADJUST=NO they stay
              and the upper block carries the same strain shifted by the gap, u_z = 100/E (z - g),
              both to 5e-7 (and with ccx, CalculiX's .dat to 1e-6);
  json        the node_set case as a JSON job ("ties"): the VTU's U and nodal S to 1e-9;
  pxnp        *DLOAD P2NP,n takes its pressure from the *BOUNDARY on DOF 2 of node n (CalculiX,
              tempload.f): the same as P2 with that value, to 1e-12; a P2 of 0 differs (the
              pressure is felt);
  tet_master  the lower block as C3D4 (triangular master faces), the upper 3 x 3 x 3 hex8: with
              ccx, CalculiX's .dat to 1e-6;
  errors      a slave node farther than POSITION TOLERANCE from the master names the node and the
              *TIE line; CYCLIC SYMMETRY, two values on a node surface line, an unknown master,
              PxNP without a boundary on the node, PxNU (a user subroutine's load) are refused
              with their line; a JSON tie with a
              far slave names ties[0].

With ccx on PATH the decks' .dat are compared with CalculiX's (to 1e-6 of each quantity's
largest value). --backend cuda (interop_tie_gpu, label gpu) runs every case on the CUDA backend,
whose constraint kernels then eliminate the tie equations."""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dat_blocks  # noqa: E402

E, NU, P = 210000.0, 0.3, 100.0
TOL = 5e-7  # results.dat prints 7 significant digits: half a unit of the last is 5e-7 relative
TOL_VTU = 1e-9  # the VTU's doubles: the solve's rounding
BACKEND = "cpu"  # --backend (interop_tie_gpu: cuda)


class Mesh:
    def __init__(self):
        self.nodes, self.elems = {}, {}

    def block(self, n, z0, h, nid0, eid0):
        """n x n x n hex8 elements on [0,1]^2 x [z0, z0 + h]; returns (node ids by (i,j,k), elems)."""
        ids = {}
        for k in range(n + 1):
            for j in range(n + 1):
                for i in range(n + 1):
                    nid = nid0 + len(ids)
                    ids[(i, j, k)] = nid
                    self.nodes[nid] = (i / n, j / n, z0 + h * k / n)
        els = []
        for k in range(n):
            for j in range(n):
                for i in range(n):
                    c = [ids[(i, j, k)], ids[(i + 1, j, k)], ids[(i + 1, j + 1, k)], ids[(i, j + 1, k)],
                         ids[(i, j, k + 1)], ids[(i + 1, j, k + 1)], ids[(i + 1, j + 1, k + 1)],
                         ids[(i, j + 1, k + 1)]]
                    eid = eid0 + len(els)
                    self.elems[eid] = c
                    els.append((eid, k))
        return ids, els


KUHN = [(0, 1, 2, 6), (0, 2, 3, 6), (0, 3, 7, 6), (0, 7, 4, 6), (0, 4, 5, 6), (0, 5, 1, 6)]
C3D4_FACES = [(0, 1, 2), (0, 3, 1), (1, 3, 2), (2, 3, 0)]  # S1..S4, CalculiX's numbering


def tet_master_pair():
    """The lower block as C3D4 (each hex8 of a 2 x 2 x 2 grid split into 6 tets), the upper one
    3 x 3 x 3 hex8: master faces are triangles, the meshes not nested. Returns the mesh, the
    groups and the top faces of the lower block as (element, S<n>)."""
    m = Mesh()
    ids, els = m.block(2, 0.0, 1.0, 1, 1)
    hexes = [m.elems.pop(e) for e, _ in els]
    tets, top = {}, []
    for h in hexes:
        for t in KUHN:
            c = [h[i] for i in t]
            a, b, d, e = (m.nodes[n] for n in c)
            u = [b[i] - a[i] for i in range(3)]
            v = [d[i] - a[i] for i in range(3)]
            w = [e[i] - a[i] for i in range(3)]
            vol = (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
                   + u[2] * (v[0] * w[1] - v[1] * w[0]))
            if vol < 0:
                c[1], c[2] = c[2], c[1]
            eid = 1 + len(tets)
            tets[eid] = c
            for f, face in enumerate(C3D4_FACES):
                if all(abs(m.nodes[c[i]][2] - 1.0) < 1e-12 for i in face):
                    top.append((eid, f + 1))
    m.elems.update(tets)
    up_ids, up_els = m.block(3, 1.0, 1.0, 1001, 101)
    return m, {"master_elems": [], "slave_elems": [e for e, k in up_els if k == 0],
               "top_elems": [e for e, k in up_els if k == 2],
               "slave_nodes": [n for (i, j, k), n in up_ids.items() if k == 0],
               "upper_nodes": set(up_ids.values())}, top


def pair(gap=0.0, fine=4):
    m = Mesh()
    lo_ids, lo_els = m.block(2, 0.0, 1.0, 1, 1)
    up_ids, up_els = m.block(fine, 1.0 + gap, 1.0, 1001, 101)
    return m, {
        "master_elems": [e for e, k in lo_els if k == 1],
        "slave_elems": [e for e, k in up_els if k == 0],
        "top_elems": [e for e, k in up_els if k == fine - 1],
        "slave_nodes": [n for (i, j, k), n in up_ids.items() if k == 0],
        "upper_nodes": set(up_ids.values()),
    }


def lines(ids, per=8):
    ids = list(ids)
    return "\n".join(", ".join(str(v) for v in ids[i:i + per]) for i in range(0, len(ids), per))


def deck(m, g, slave_kw, tie_kw="*TIE, NAME=T1", slave="SLV", master="MST", dload=None):
    eps = 1e-12
    x0 = [n for n, x in m.nodes.items() if abs(x[0]) < eps]
    y0 = [n for n, x in m.nodes.items() if abs(x[1]) < eps]
    z0 = [n for n, x in m.nodes.items() if abs(x[2]) < eps]
    out = ["*HEADING", "tied patch", "*NODE, NSET=NALL"]
    out += ["%d, %.17g, %.17g, %.17g" % ((n,) + m.nodes[n]) for n in sorted(m.nodes)]
    for n_nodes, etype in ((8, "C3D8"), (4, "C3D4")):
        els = [(e, c) for e, c in sorted(m.elems.items()) if len(c) == n_nodes]
        if els:
            out += ["*ELEMENT, TYPE=%s, ELSET=EALL" % etype]
            out += ["%d, %s" % (e, ", ".join(map(str, c))) for e, c in els]
    out += ["*NSET, NSET=X0", lines(x0), "*NSET, NSET=Y0", lines(y0), "*NSET, NSET=Z0", lines(z0)]
    out += ["*NSET, NSET=SLAVEN", lines(g["slave_nodes"])]
    out += ["*ELSET, ELSET=TOP", lines(g["top_elems"])]
    if g.get("master_faces"):
        out += ["*SURFACE, NAME=MST"] + ["%d, S%d" % ef for ef in g["master_faces"]]
    else:
        out += ["*ELSET, ELSET=MSTE", lines(g["master_elems"]), "*SURFACE, NAME=MST", "MSTE, S2"]
    out += ["*ELSET, ELSET=SLVE", lines(g["slave_elems"])]
    out += slave_kw
    out += [tie_kw, "%s, %s" % (slave, master)]
    out += ["*BOUNDARY", "X0, 1", "Y0, 2", "Z0, 3"]
    out += ["*MATERIAL, NAME=EL", "*ELASTIC", "%g, %g" % (E, NU)]
    out += ["*SOLID SECTION, ELSET=EALL, MATERIAL=EL", "*STEP", "*STATIC"]
    out += dload or ["*DLOAD", "TOP, P2, %g" % -P]
    out += ["*NODE PRINT, NSET=NALL", "U", "*EL PRINT, ELSET=EALL", "S", "*END STEP", ""]
    return "\n".join(out)


NODE_SET = ["*SURFACE, NAME=SLV, TYPE=NODE", "SLAVEN"]
FACES = ["*SURFACE, NAME=SLV", "SLVE, S1"]


def run(solver, d, name, text, expect_fail=False):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".inp"), "w") as f:
        f.write(text)
    p = subprocess.run([solver, name + ".inp", "-o", name + ".out", "--backend", BACKEND, "--quiet"],
                       cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    if expect_fail:
        return p.returncode, p.stdout
    if p.returncode != 0:
        print(p.stdout[-2000:])
        raise SystemExit("ductile-solve failed on %s (rc %d)" % (name, p.returncode))
    return dat_blocks.blocks(os.path.join(d, name + ".out", "results.dat")), p.stdout


def uniform_error(blocks, coords):
    """Largest deviation from the uniform uniaxial state, relative to the largest exact value."""
    eu = es = 0.0
    umax = P / E * max(abs(c[2]) for c in coords.values())
    for kind, _, _, rows in blocks:
        for r in rows:
            v = dat_blocks.numbers(r)
            if kind == "displacements":
                x, y, z = coords[int(v[0])]
                ex = (-NU * P / E * x, -NU * P / E * y, P / E * z)
                eu = max(eu, max(abs(a - b) for a, b in zip(v[1:4], ex)) / umax)
            elif kind == "stresses":
                es = max(es, max(abs(a - b) for a, b in zip(v[2:8], (0, 0, P, 0, 0, 0))) / P)
    return max(eu, es)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--backend", default=os.environ.get("DUCTILE_BACKEND", "cpu"), choices=["cpu", "cuda"])
    args = ap.parse_args()
    global BACKEND
    BACKEND = args.backend
    solver = os.path.abspath(args.solver)
    shutil.rmtree(args.work, ignore_errors=True)
    ck = dat_blocks.Checks()
    d = args.work

    m, g = pair()
    got, log = run(solver, d, "node_set", deck(m, g, NODE_SET))
    err = uniform_error(got, m.nodes)
    ck(err <= TOL, "node_set: uniform uniaxial state to 5e-7 (worst %.1e)" % err)
    ck("get no tie equation" in log, "node_set: the slave DOFs held by the supports are named in a warning")
    dat_blocks.against_ccx(ck, d, "node_set", got)

    shared = [n for n, x in m.nodes.items() if n < 1000 and x == (0.5, 0.5, 1.0)]
    g_sh = dict(g, slave_nodes=g["slave_nodes"] + shared)
    got_sh, log = run(solver, d, "shared", deck(m, g_sh, NODE_SET))
    ck(shared and "nodes of the master surface too" in log and got_sh == got,
       "shared: a master node among the slaves gets no equation (warned), the same results")

    m5, g5 = pair(fine=3)
    got, _ = run(solver, d, "not_nested", deck(m5, g5, NODE_SET))
    err = uniform_error(got, m5.nodes)
    ck(err > 1e-3, "not_nested: 3 slave on 2 master elements do not transfer uniform stress (%.2f)" % err)
    dat_blocks.against_ccx(ck, d, "not_nested", got)

    m6, g6, top = tet_master_pair()
    g6["master_faces"] = top
    got, _ = run(solver, d, "tet_master", deck(m6, g6, NODE_SET))
    err = uniform_error(got, m6.nodes)
    ck(err < 0.5, "tet_master: triangular master faces (C3D4) run (stress error %.2f)" % err)
    dat_blocks.against_ccx(ck, d, "tet_master", got)

    last4 = g["slave_nodes"][-4:]
    ids = ["*NSET, NSET=LAST4", lines(last4), "*SURFACE, NAME=SLV, TYPE=NODE"]
    ids += [str(n) for n in g["slave_nodes"][:-4]] + ["LAST4"]
    text = deck(m, g, ids)
    got, _ = run(solver, d, "node_ids", text)
    err = uniform_error(got, m.nodes)
    ck(err <= TOL, "node_ids: node numbers and a set on a node surface, to 5e-7 (worst %.1e)" % err)

    got, _ = run(solver, d, "faces", deck(m, g, FACES))
    err = uniform_error(got, m.nodes)
    ck(err <= TOL, "faces: an element-face slave surface, to 5e-7 (worst %.1e)" % err)

    gap = 0.002
    m2, g2 = pair(gap)
    got, _ = run(solver, d, "adjust", deck(m2, g2, NODE_SET))
    moved = dict(m2.nodes)
    for n in g2["slave_nodes"]:
        moved[n] = (moved[n][0], moved[n][1], 1.0)
    err = uniform_error(got, moved)
    ck(err <= TOL, "adjust: slave nodes moved onto the master, exact there (worst %.1e)" % err)
    dat_blocks.against_ccx(ck, d, "adjust", got)
    got, _ = run(solver, d, "adjust_no", deck(m2, g2, NODE_SET, "*TIE, NAME=T1, ADJUST=NO"))
    shifted = {n: (x[0], x[1], x[2] - gap if n in g2["upper_nodes"] else x[2]) for n, x in m2.nodes.items()}
    err = uniform_error(got, shifted)
    ck(err <= TOL, "adjust_no: slave nodes kept, the upper block shifted by the gap (worst %.1e)" % err)
    dat_blocks.against_ccx(ck, d, "adjust_no", got)

    # the JSON job: the node_set case
    nodes = [[n] + list(m.nodes[n]) for n in sorted(m.nodes)]
    eps = 1e-12
    sel = lambda f: [n for n, x in m.nodes.items() if f(x)]  # noqa: E731
    jobd = {"ductile": 1, "title": "tied patch",
            "mesh": {"nodes": nodes,
                     "elements": [{"type": "hex8", "connectivity": [[e] + c for e, c in sorted(m.elems.items())]}],
                     "node_sets": {"x0": sel(lambda x: abs(x[0]) < eps), "y0": sel(lambda x: abs(x[1]) < eps),
                                   "z0": sel(lambda x: abs(x[2]) < eps), "slave": g["slave_nodes"]},
                     "element_sets": {"all": sorted(m.elems)},
                     "surfaces": {"master": [[e, "S2"] for e in g["master_elems"]],
                                  "top": [[e, "S2"] for e in g["top_elems"]]}},
            "materials": [{"name": "el", "elastic": {"E": E, "nu": NU}}],
            "sections": [{"element_set": "all", "material": "el", "kind": "solid"}],
            "steps": [{"name": "pull", "boundary": [{"node_set": "x0", "fixed": ["x"]},
                                                     {"node_set": "y0", "fixed": ["y"]},
                                                     {"node_set": "z0", "fixed": ["z"]}],
                       "loads": [{"type": "pressure", "surface": "top", "value": -P}]}],
            "ties": [{"name": "t1", "slave_node_set": "slave", "master_surface": "master"}],
            "solver": {"newton": {"max_iterations": 10, "force_tolerance": 1e-12},
                       "linear": {"tolerance": 1e-14, "max_iterations": 100000}}}
    try:
        import jsonschema
        schema = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema",
                                             "job.schema.json")))
        errs = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(jobd)]
        ck(not errs, "json: schema/job.schema.json accepts the job with \"ties\"" + ("" if not errs else ": " + errs[0]))
    except ImportError:
        print("jsonschema not installed: the job is not checked against the schema")
    jp = os.path.join(d, "tie.json")
    with open(jp, "w") as f:
        json.dump(jobd, f)
    p = subprocess.run([solver, "tie.json", "-o", "tie_json.out", "--backend", BACKEND, "--quiet"], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    ck(p.returncode == 0, "json: the job with \"ties\" runs" + ("" if p.returncode == 0 else ": " + p.stdout[-400:]))
    if p.returncode == 0:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
        import vlib  # noqa: E402
        v = vlib.read_vtu(os.path.join(d, "tie_json.out", "increment_0001.vtu"))
        coords = {n: m.nodes[n] for n in sorted(m.nodes)}
        rows = ["%d %s" % (n, " ".join(repr(c) for c in u)) for n, u in zip(sorted(m.nodes), v["point"]["U"])]
        srows = ["%d 0 %s" % (n, " ".join(repr(c) for c in sv)) for n, sv in zip(sorted(m.nodes), v["point"]["S"])]
        err = uniform_error([("displacements", "", 1.0, rows), ("stresses", "", 1.0, srows)], coords)
        ck(err <= TOL_VTU, "json: the VTU's U and nodal S to 1e-9 (worst %.1e)" % err)
    jobd["ties"][0]["position_tolerance"] = 1e-3
    jobd["ties"][0]["slave_node_set"] = "z0"
    with open(jp, "w") as f:
        json.dump(jobd, f)
    p = subprocess.run([solver, "tie.json", "-o", "tie_bad.out", "--backend", BACKEND, "--quiet"], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    ck(p.returncode != 0 and "ties[0]" in p.stdout and "slave node" in p.stdout,
       "json: a far slave node is refused under ties[0] (%s)" % p.stdout.strip().splitlines()[-1][:90])

    # PxNP: the pressure is the DOF 2 boundary value of the node (node 1008: a free upper node)
    carrier = [n for n in sorted(g["upper_nodes"]) if m.nodes[n][0] > 0 and m.nodes[n][1] > 0][0]
    bc = ["*BOUNDARY", "%d, 2, 2, %g" % (carrier, -P * 1e-3)]
    a, _ = run(solver, d, "pxnp", deck(m, g, NODE_SET, dload=["*DLOAD", "TOP, P2NP, %d" % carrier] + bc))
    b, _ = run(solver, d, "p2", deck(m, g, NODE_SET, dload=["*DLOAD", "TOP, P2, %g" % (-P * 1e-3)] + bc))
    c, _ = run(solver, d, "p0", deck(m, g, NODE_SET, dload=["*DLOAD", "TOP, P2, 0"] + bc))

    def diff(x, y):
        vals = [(dat_blocks.numbers(r), dat_blocks.numbers(s)) for bx, by in zip(x, y) for r, s in zip(bx[3], by[3])]
        scale = max(abs(v) for r, _ in vals for v in r[1:])
        return max(abs(u - v) for r, s in vals for u, v in zip(r[1:], s[1:])) / scale

    ck(diff(a, b) <= 1e-12, "pxnp: P2NP,n = P2 with n's DOF 2 boundary value (%.1e)" % diff(a, b))
    ck(diff(a, c) >= 1e-6, "pxnp: and differs from no pressure (%.1e)" % diff(a, c))
    dat_blocks.against_ccx(ck, d, "pxnp", a)

    def refused(name, text, *want):
        rc, out = run(solver, d, name, text, expect_fail=True)
        ok = rc != 0 and all(w in out for w in want)
        ck(ok, "%s: refused naming %s" % (name, ", ".join(want)))
        if not ok:
            print(out[-600:])

    m3, g3 = pair(0.1)
    text = deck(m3, g3, NODE_SET, "*TIE, NAME=T1, POSITION TOLERANCE=0.01")
    tie_line = text.splitlines().index("*TIE, NAME=T1, POSITION TOLERANCE=0.01") + 1
    refused("far", text, "far.inp:%d" % tie_line, "slave node %d" % g3["slave_nodes"][0], "tolerance 0.01")
    refused("cyclic", deck(m, g, NODE_SET, "*TIE, NAME=T1, CYCLIC SYMMETRY"), "CYCLIC SYMMETRY")
    refused("two_per_line", deck(m, g, ["*SURFACE, NAME=SLV, TYPE=NODE", "1001, 1002"]), "TYPE=NODE",
            "one node set or node number per line")
    refused("no_master", deck(m, g, NODE_SET, master="NOPE"), "unknown master surface 'NOPE'")
    refused("pxnp_no_bc", deck(m, g, NODE_SET, dload=["*DLOAD", "TOP, P2NP, %d" % carrier]),
            "node %d has no *BOUNDARY on DOF 2" % carrier)
    refused("pxnu", deck(m, g, NODE_SET, dload=["*DLOAD", "TOP, P2NU, 1."]), "P2NU", "user subroutines")
    sys.exit(1 if ck.failed else 0)


if __name__ == "__main__":
    main()
