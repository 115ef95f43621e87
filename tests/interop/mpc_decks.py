#!/usr/bin/env python3
"""*RIGID BODY and *MPC MEANROT (CalculiX's nonlinear MPCs, linearised in a small-strain static
step and eliminated as equations) against hand checks, and their refusals.

The body: a hex8 block of L x 1 x 1 (L = 2; 4 x 2 x 2 elements, E = 200000, nu = 0.3) clamped on
x = 0 (set FIX). Its end face x = L (set END, 9 nodes) is constrained. Cases, each a deck run on
--backend (cpu by default) and read back from results.dat:

  rigid_rotation   END is a rigid body (REF NODE 1001 at (L, 0.5, 0.5), ROT NODE 1002, nodes
                   that no element uses); ROT's DOFs are prescribed theta = (2e-3, -1e-3,
                   1.5e-3) and REF is free: every END node moves as u = u_ref + theta x (x -
                   x_ref) with the printed u_ref (REF's DOFs are then dependent: the pivoted
                   elimination), to 1e-12 of max |u|; ROT's printed U is theta; with every
                   preconditioner (jacobi, block_jacobi, two_level, amg);
  rigid_force      REF carries a force P = (100, 200, -300) and ROT a moment M = (50, 0, 0)
                   (CLOAD on ROT's translational DOFs, CalculiX's convention): the reactions at
                   FIX sum to -P and their moment about REF is -M - (x_FIX-moment of -P), i.e.
                   the whole block is in equilibrium, to 1e-9 of |P|; RF printed at REF is P and
                   at ROT is M (CalculiX's force at those nodes), 1e-9;
  rigid_two_steps  the same loads kept through a second step of 4 increments: each increment
                   holds step 1's U (the load on REF/ROT stays in the step's starting load),
                   1e-10 of max |u|;
  rigid_generated  *RIGID BODY, NSET=END with no REF/ROT NODE: CalculiX generates both (REF at
                   the origin); a force on the END nodes: END moves rigidly, i.e.
                   (u_i - u_j) . (x_i - x_j) = 0 for every pair of END nodes, to 1e-12 of
                   max |u| |dx|;
  rigid_elset      *RIGID BODY, ELSET= (the last layer of elements): the same kinematics on
                   every node of those elements, 1e-12;
  meanrot          *MPC MEANROT over END, angle node 2001 at (1, 0, 0) (axis x) with its DOF 1
                   prescribed 1e-3: the mean linearised rotation of END about x,
                   (1/n) sum_i (a x p_i) . (u_i - u_mean) / |p_i|^2 (p_i from the centroid,
                   normal to a; the centre node, on the axis, left out as CalculiX leaves it
                   out), equals 1e-3 to 1e-12; the angle node's printed U is 1e-3 and its RF
                   is n / n_off times the torque, minus the reactions' moment about x (CalculiX
                   counts the node on the axis in n), 1e-6 relative (7 printed digits);
  meanrot_free     the same with the angle free and loaded by a moment T (the angle is then
                   the dependent DOF): the mean rotation is the angle node's U (1e-12), the
                   reactions' moment is -n_off / n T and the angle node's RF is T (1e-6);
  refusals         each must fail with the deck's file:line and a message naming what: *MPC
                   PLANE (CalculiX's NLGEOM MPC), an unknown *MPC type, MEANROT entries that are
                   not node triples, an angle node at the origin, *RIGID BODY without a set or
                   with an unknown REF NODE, a collinear body whose rotation is free, a node no
                   element and no constraint uses, and a ROT node held in one step only.

    mpc_decks.py --solver build/solver/ductile-solve [--backend cpu|cuda] [--work DIR]
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
import vlib  # noqa: E402  (the VTU reader)

L, NX, NY, NZ = 2.0, 4, 2, 2
E, NU = 200000.0, 0.3


def mesh():
    """Nodes {id: (x, y, z)} and hex8 elements [(id, [8 node ids])]."""
    nid = lambda i, j, k: 1 + i + (NX + 1) * (j + (NY + 1) * k)
    nodes = {}
    for k in range(NZ + 1):
        for j in range(NY + 1):
            for i in range(NX + 1):
                nodes[nid(i, j, k)] = (L * i / NX, j / NY, k / NZ)
    elems = []
    for k in range(NZ):
        for j in range(NY):
            for i in range(NX):
                c = [nid(i, j, k), nid(i + 1, j, k), nid(i + 1, j + 1, k), nid(i, j + 1, k),
                     nid(i, j, k + 1), nid(i + 1, j, k + 1), nid(i + 1, j + 1, k + 1), nid(i, j + 1, k + 1)]
                elems.append((1 + i + NX * (j + NY * k), c))
    return nodes, elems


NODES, ELEMS = mesh()
FIX = [n for n, x in NODES.items() if abs(x[0]) < 1e-12]
END = [n for n, x in NODES.items() if abs(x[0] - L) < 1e-12]
LAST = [e for e, c in ELEMS if max(NODES[n][0] for n in c) > L - 1e-12]


def ids(lst):
    return "\n".join(", ".join(str(v) for v in lst[i:i + 8]) for i in range(0, len(lst), 8))


def deck(model_extra, step, extra_nodes=""):
    lines = ["*HEADING", "mpc test block", "*NODE, NSET=NALL"]
    lines += ["%d, %.17g, %.17g, %.17g" % ((n,) + NODES[n]) for n in sorted(NODES)]
    if extra_nodes:
        lines.append("*NODE")
        lines.append(extra_nodes.strip())
    lines.append("*ELEMENT, TYPE=C3D8, ELSET=EALL")
    lines += ["%d, %s" % (e, ", ".join(map(str, c))) for e, c in ELEMS]
    lines += ["*NSET, NSET=FIX", ids(FIX), "*NSET, NSET=END", ids(END), "*ELSET, ELSET=LAST", ids(LAST),
              "*MATERIAL, NAME=STEEL", "*ELASTIC", "%g, %g" % (E, NU),
              "*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL", model_extra.strip(),
              "*STEP", "*STATIC", "*BOUNDARY", "FIX, 1, 3", step.strip(), "*END STEP", ""]
    return "\n".join(lines)


def run(args, name, text, precond=None):
    d = os.path.join(args.work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    path = os.path.join(d, name + ".inp")
    with open(path, "w") as f:
        f.write(text)
    cmd = [args.solver, path, "-o", os.path.join(d, "out"), "--backend", args.backend, "--quiet"]
    if precond:
        cmd += ["--precond", precond]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p, path, os.path.join(d, "out", "results.dat")


def read_u(dat, extra=(1001, 1002)):
    """{node id: U} at full precision from the VTU file beside results.dat (points in deck
    order: the block's nodes sorted, then the extra nodes in deck order, then generated ones)."""
    d = os.path.dirname(dat)
    vtu = sorted(f for f in os.listdir(d) if f.endswith(".vtu"))[-1]
    v = vlib.read_vtu(os.path.join(d, vtu))
    order = sorted(NODES) + list(extra)
    return {n: v["point"]["U"][i] for i, n in enumerate(order) if i < len(v["point"]["U"])}


def read_dat(path):
    """{(kind, set): {node: (a, b, c)}} of the displacements and forces blocks."""
    out, cur = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*(displacements|forces) \(.*\) for set (\S+)", line)
            if m:
                cur = out.setdefault((m.group(1), m.group(2)), {})
                continue
            t = line.split()
            if cur is not None and len(t) == 4 and re.match(r"^\d+$", t[0]):
                cur[int(t[0])] = tuple(float(v) for v in t[1:])
            elif t and not re.match(r"^\d+$", t[0]):
                cur = None
    return out


FAILS = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILS.append(what)


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def solved(p, name):
    check(p.returncode == 0, "%s: ductile-solve succeeds%s" % (name, "" if p.returncode == 0 else ": " + p.stderr[-400:]))
    return p.returncode == 0


PRINTS = """*NODE FILE
U
*NODE PRINT, NSET=NALL
U
*NODE PRINT, NSET=FIX
RF
*NODE PRINT, NSET=EXTRA
U, RF
"""


def rigid_rotation(args):
    theta = (2e-3, -1e-3, 1.5e-3)
    xref = (L, 0.5, 0.5)
    extra = "1001, %g, %g, %g\n1002, 0, 0, 0" % xref
    model = "*NSET, NSET=EXTRA\n1001, 1002\n*RIGID BODY, NSET=END, REF NODE=1001, ROT NODE=1002"
    step = "1002, 1, 1, %g\n1002, 2, 2, %g\n1002, 3, 3, %g\n" % theta + PRINTS
    for pc in ("jacobi", "block_jacobi", "two_level", "amg"):
        p, _, dat = run(args, "rigid_rotation_" + pc, deck(model, step, extra), pc)
        if not solved(p, "rigid_rotation (%s)" % pc):
            continue
        u = read_u(dat)
        ux = read_dat(dat)["displacements", "EXTRA"]
        uref = u[1001]
        umax = max(abs(v) for n in END for v in u[n])
        err = max(abs(a - b) for n in END
                  for a, b in zip(u[n], [uref[k] + cross(theta, sub(NODES[n], xref))[k] for k in range(3)]))
        check(err <= 1e-12 * umax + 1e-15,
              "rigid_rotation (%s): END moves as u_ref + theta x (x - x_ref): max error %.2e of max |u| %.3e"
              % (pc, err / umax, umax))
        check(max(abs(a - b) for a, b in zip(u[1002], theta)) <= 1e-15 and
              max(abs(a - b) for a, b in zip(ux[1002], theta)) <= 1e-15,
              "rigid_rotation (%s): ROT node's U is theta" % pc)


def rigid_force(args):
    P = (100.0, 200.0, -300.0)
    M = (50.0, 0.0, 0.0)
    xref = (L, 0.5, 0.5)
    extra = "1001, %g, %g, %g\n1002, 0, 0, 0" % xref
    model = "*NSET, NSET=EXTRA\n1001, 1002\n*RIGID BODY, NSET=END, REF NODE=1001, ROT NODE=1002"
    step = "*CLOAD\n" + "".join("1001, %d, %g\n" % (k + 1, P[k]) for k in range(3)) + \
        "1002, 1, %g\n" % M[0] + PRINTS
    p, _, dat = run(args, "rigid_force", deck(model, step, extra))
    if not solved(p, "rigid_force"):
        return
    r = read_dat(dat)
    rf = r["forces", "FIX"]
    tot = [sum(rf[n][k] for n in FIX) for k in range(3)]
    mom = [0.0, 0.0, 0.0]
    for n in FIX:
        c = cross(sub(NODES[n], xref), rf[n])
        mom = [mom[k] + c[k] for k in range(3)]
    scale = math.sqrt(dot(P, P))
    tol = 1e-6 * scale  # results.dat prints 7 significant digits
    check(max(abs(tot[k] + P[k]) for k in range(3)) <= tol,
          "rigid_force: the reactions sum to -P (%s)" % ", ".join("%.6g" % v for v in tot))
    check(max(abs(mom[k] + M[k]) for k in range(3)) <= tol,
          "rigid_force: the reactions' moment about REF is -M (%s)" % ", ".join("%.6g" % v for v in mom))
    fx = r["forces", "EXTRA"]
    check(max(abs(a - b) for a, b in zip(fx[1001], P)) <= tol,
          "rigid_force: RF at REF is P (%s)" % ", ".join("%.6g" % v for v in fx[1001]))
    check(max(abs(a - b) for a, b in zip(fx[1002], M)) <= tol,
          "rigid_force: RF at ROT is M (%s)" % ", ".join("%.6g" % v for v in fx[1002]))


def rigid_two_steps(args):
    """A force on REF and a moment on ROT in step 1, kept through step 2 in increments of 0.25:
    every increment of step 2 holds step 1's answer (the load on a node no element uses stays
    in the step's starting load), to 1e-10 of max |u|."""
    xref = (L, 0.5, 0.5)
    extra = "1001, %g, %g, %g\n1002, 0, 0, 0" % xref
    model = "*RIGID BODY, NSET=END, REF NODE=1001, ROT NODE=1002"
    text = deck(model, "*CLOAD\n1001, 2, 200.\n1002, 1, 50.\n*NODE FILE\nU\n", extra)
    text = text.replace("*STEP\n*STATIC\n", "*STEP\n*STATIC\n1., 1.\n")
    text += "*STEP\n*STATIC\n0.25, 1.\n*NODE FILE\nU\n*END STEP\n"
    p, _, dat = run(args, "rigid_two_steps", text)
    if not solved(p, "rigid_two_steps"):
        return
    d = os.path.dirname(dat)
    vtus = sorted(f for f in os.listdir(d) if f.endswith(".vtu"))
    us = [vlib.read_vtu(os.path.join(d, f))["point"]["U"] for f in vtus]
    scale = max(abs(v) for t in us[0] for v in t)
    err = max(abs(a - b) for u in us[1:] for ta, tb in zip(u, us[0]) for a, b in zip(ta, tb))
    check(len(us) >= 3 and err <= 1e-10 * scale,
          "rigid_two_steps: step 2's %d increments hold step 1's U to %.2e of max |u|" % (len(us) - 1, err / scale))


def rigid_pairs(u, nodes, what):
    umax = max(abs(v) for n in nodes for v in u[n])
    err = 0.0
    for i in nodes:
        for j in nodes:
            dx = sub(NODES[i], NODES[j])
            err = max(err, abs(dot(sub(u[i], u[j]), dx)) / (umax * math.sqrt(dot(dx, dx)) or 1.0))
    check(umax > 0 and err <= 1e-12, "%s: the nodes move rigidly ((u_i - u_j).(x_i - x_j) = 0): %.2e" % (what, err))


def rigid_generated(args):
    model = "*RIGID BODY, NSET=END"
    step = "*CLOAD\n%d, 2, 100.\n%d, 3, -50.\n" % (END[0], END[-1]) + "*NODE FILE\nU\n*NODE PRINT, NSET=NALL\nU\n"
    p, _, dat = run(args, "rigid_generated", deck(model, step))
    if solved(p, "rigid_generated"):
        rigid_pairs(read_u(dat), END, "rigid_generated")


def rigid_elset(args):
    model = "*RIGID BODY, ELSET=LAST"
    step = "*CLOAD\n%d, 2, 100.\n" % END[0] + "*NODE FILE\nU\n*NODE PRINT, NSET=NALL\nU\n"
    p, _, dat = run(args, "rigid_elset", deck(model, step))
    if solved(p, "rigid_elset"):
        body = sorted({n for e, c in ELEMS if e in LAST for n in c})
        rigid_pairs(read_u(dat), body, "rigid_elset")


def meanrot(args):
    th = 1e-3
    a = (1.0, 0.0, 0.0)
    extra = "2001, 1, 0, 0"
    model = "*NSET, NSET=EXTRA\n2001\n*MPC\nMEANROT, " + ", ".join("%d, %d, %d" % (n, n, n) for n in END) + \
        ",\n2001"
    step = "*BOUNDARY\n2001, 1, 1, %g\n" % th + PRINTS
    p, _, dat = run(args, "meanrot", deck(model, step, extra))
    if not solved(p, "meanrot"):
        return
    r = read_dat(dat)
    u = read_u(dat, [2001])
    cg = [sum(NODES[n][k] for n in END) / len(END) for k in range(3)]
    um = [sum(u[n][k] for n in END) / len(END) for k in range(3)]
    s, cnt = 0.0, 0
    for n in END:
        pp = sub(NODES[n], cg)
        pp = tuple(pp[k] - dot(pp, a) * a[k] for k in range(3))
        if dot(pp, pp) < 1e-12:
            continue
        s += dot(cross(a, pp), sub(u[n], um)) / dot(pp, pp)
        cnt += 1
    check(abs(s / len(END) - th) <= 1e-12 * th and cnt == len(END) - 1,
          "meanrot: the mean rotation of END about x is %.12g (prescribed %g; %d nodes off the axis)"
          % (s / len(END), th, cnt))
    fx = r["forces", "EXTRA"]
    ux = r["displacements", "EXTRA"]
    check(abs(ux[2001][0] - th) <= 1e-15, "meanrot: the angle node's U is %g" % ux[2001][0])
    rf = r["forces", "FIX"]
    mx = sum(cross(NODES[n], rf[n])[0] for n in FIX)
    # CalculiX's n counts the node on the axis, so the angle is n_off / n times the rigid
    # rotation of the off-axis nodes, and its conjugate force n / n_off times the torque
    check(abs(fx[2001][0] + mx * len(END) / cnt) <= 1e-6 * abs(mx) and abs(mx) > 0,
          "meanrot: RF at the angle node %.8g is n / n_off = %d / %d times the torque (minus the "
          "reactions' moment about x, %.8g)" % (fx[2001][0], len(END), cnt, -mx))


def meanrot_free(args):
    """The angle free and loaded by a moment T (its DOF then the dependent one): the mean
    rotation is the angle node's U, and the face carries n_off / n of T."""
    T = 40.0
    a = (1.0, 0.0, 0.0)
    model = "*NSET, NSET=EXTRA\n2001\n*MPC\nMEANROT, " + ", ".join("%d, %d, %d" % (n, n, n) for n in END) + \
        ",\n2001"
    step = "*CLOAD\n2001, 1, %g\n" % T + PRINTS
    p, _, dat = run(args, "meanrot_free", deck(model, step, "2001, 1, 0, 0"))
    if not solved(p, "meanrot_free"):
        return
    r = read_dat(dat)
    u = read_u(dat, [2001])
    cg = [sum(NODES[n][k] for n in END) / len(END) for k in range(3)]
    um = [sum(u[n][k] for n in END) / len(END) for k in range(3)]
    s, cnt = 0.0, 0
    for n in END:
        pp = sub(NODES[n], cg)
        pp = tuple(pp[k] - dot(pp, a) * a[k] for k in range(3))
        if dot(pp, pp) < 1e-12:
            continue
        s += dot(cross(a, pp), sub(u[n], um)) / dot(pp, pp)
        cnt += 1
    th = u[2001][0]
    check(th != 0 and abs(s / len(END) - th) <= 1e-12 * abs(th),
          "meanrot_free: the mean rotation %.12g is the angle node's U %.12g" % (s / len(END), th))
    mx = sum(cross(NODES[n], r["forces", "FIX"][n])[0] for n in FIX)
    check(abs(mx + T * cnt / len(END)) <= 1e-6 * T,
          "meanrot_free: the reactions' moment about x %.8g is -n_off / n T = %.8g" % (mx, -T * cnt / len(END)))
    check(abs(r["forces", "EXTRA"][2001][0] - T) <= 1e-6 * T,
          "meanrot_free: RF at the angle node is the moment %g" % r["forces", "EXTRA"][2001][0])


def job_json(args):
    """The job format's "rigid_bodies" and "mpcs" give the decks' answers (rigid_force with a
    mean rotation added on the clamped end's neighbours' face)."""
    import json
    xref = (L, 0.5, 0.5)
    mid = [n for n, x in NODES.items() if abs(x[0] - L / 2) < 1e-12]
    nodes = [[n] + list(NODES[n]) for n in sorted(NODES)] + [[1001] + list(xref), [1002, 0, 0, 0],
                                                           [2001, 1, 0, 0]]
    P, M, TH = (100.0, 200.0, -300.0), 50.0, 1e-4
    j = {"ductile": 1, "title": "mpc json",
         "mesh": {"nodes": nodes, "elements": [{"type": "hex8", "connectivity": [[e] + c for e, c in ELEMS]}],
                  "node_sets": {"FIX": FIX, "END": END, "MID": mid, "REF": [1001], "ROT": [1002], "ANG": [2001]},
                  "element_sets": {"all": [e for e, _ in ELEMS]}},
         "materials": [{"name": "steel", "elastic": {"E": E, "nu": NU}}],
         "sections": [{"element_set": "all", "material": "steel", "kind": "solid"}],
         "steps": [{"name": "load", "boundary": [{"node_set": "FIX", "fixed": ["x", "y", "z"]},
                                                 {"node_set": "ANG", "displacement": {"x": TH}}],
                    "loads": [{"type": "force", "node_set": "REF", "value": list(P)},
                              {"type": "force", "node_set": "ROT", "value": [M, 0, 0]}]}],
         "rigid_bodies": [{"node_set": "END", "ref_node": 1001, "rot_node": 1002}],
         "mpcs": [{"type": "meanrot", "node_set": "MID", "angle_node": 2001}]}
    d = os.path.join(args.work, "json")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "job.json"), "w") as f:
        json.dump(j, f)
    p = subprocess.run([args.solver, os.path.join(d, "job.json"), "-o", os.path.join(d, "out"), "--backend",
                        args.backend, "--quiet"], capture_output=True, text=True)
    if not solved(p, "json"):
        return
    vtu = sorted(f for f in os.listdir(os.path.join(d, "out")) if f.endswith(".vtu"))[-1]
    uj = vlib.read_vtu(os.path.join(d, "out", vtu))["point"]["U"]
    extra = "1001, %g, %g, %g\n1002, 0, 0, 0\n2001, 1, 0, 0" % xref
    model = "*NSET, NSET=EXTRA\n1001, 1002, 2001\n*RIGID BODY, NSET=END, REF NODE=1001, ROT NODE=1002\n" \
        "*MPC\nMEANROT, " + ", ".join("%d, %d, %d" % (n, n, n) for n in mid) + ", 2001"
    step = "2001, 1, 1, %g\n*CLOAD\n" % TH + "".join("1001, %d, %g\n" % (k + 1, P[k]) for k in range(3)) + \
        "1002, 1, %g\n" % M + PRINTS
    p, _, dat = run(args, "json_deck", deck(model, step, extra))
    if not solved(p, "json (the deck)"):
        return
    ud = read_u(dat, [1001, 1002, 2001])
    order = sorted(NODES) + [1001, 1002, 2001]
    scale = max(abs(v) for t in uj for v in t)
    err = max(abs(a - b) for i, n in enumerate(order) for a, b in zip(uj[i], ud[n]))
    check(err <= 1e-10 * scale, "json: \"rigid_bodies\" and \"mpcs\" give the deck's U to %.2e of max |u|"
          % (err / scale))
    bad = dict(j, mpcs=[{"type": "meanrot", "node_set": "MID", "angle_node": 99999}])
    with open(os.path.join(d, "bad.json"), "w") as f:
        json.dump(bad, f)
    p = subprocess.run([args.solver, os.path.join(d, "bad.json"), "-o", os.path.join(d, "bad"), "--backend",
                        args.backend, "--quiet"], capture_output=True, text=True)
    check(p.returncode != 0 and "mpcs[0].angle_node" in p.stderr,
          "json: an unknown angle node is refused at its path (%s)" % p.stderr.strip()[-120:])


def refusals(args):
    plain = "*NODE PRINT, NSET=NALL\nU\n"
    cases = [
        ("mpc_plane", "*MPC\nPLANE, %d, %d, %d, %d" % tuple(END[:4]), "*CLOAD\n%d, 2, 1.\n" % END[0] + plain, "",
         r"\*MPC.*PLANE.*NLGEOM"),
        ("mpc_unknown", "*MPC\nFOO, %d, %d" % tuple(END[:2]), plain, "", r"\*MPC.*'FOO'"),
        ("mpc_triples", "*MPC\nMEANROT, %d, %d, %d, 2001" % (END[0], END[0], END[1]), plain, "2001, 1, 0, 0",
         r"three times"),
        ("mpc_axis", "*MPC\nMEANROT, %d, %d, %d, %d, %d, %d, 2001" % (END[0], END[0], END[0], END[1], END[1], END[1]),
         "*BOUNDARY\n2001, 1, 1, 1e-3\n" + plain, "2001, 0, 0, 0", r"origin"),
        ("rigid_noset", "*RIGID BODY, REF NODE=1001, ROT NODE=1002", plain, "1001, 2, 0, 0\n1002, 0, 0, 0",
         r"NSET= or ELSET="),
        ("rigid_badref", "*RIGID BODY, NSET=END, REF NODE=5555", plain, "", r"node 5555 does not exist"),
        ("rigid_collinear", "*NSET, NSET=TWO\n%d, %d\n*RIGID BODY, NSET=TWO, REF NODE=1001, ROT NODE=1002"
         % (END[0], END[-1]), "*CLOAD\n%d, 2, 1.\n" % END[0] + plain, "1001, 2, 0, 0\n1002, 0, 0, 0",
         r"do not determine its motion"),
        ("stray_node", "", plain, "3001, 5, 5, 5", r"node 3001 is not connected"),
    ]
    for name, model, step, extra, pattern in cases:
        p, path, _ = run(args, name, deck(model, step, extra))
        where = re.search(re.escape(os.path.basename(path)) + r":\d+", p.stderr)
        ok = p.returncode != 0 and re.search(pattern, p.stderr) is not None and \
            (where is not None or name == "stray_node")
        check(ok, "refusal %s: %s" % (name, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "(no message)"))
    # a ROT node held in step 1 and free in step 2: its DOF would have no stiffness there
    model = "*NSET, NSET=EXTRA\n1001, 1002\n*RIGID BODY, NSET=END, REF NODE=1001, ROT NODE=1002"
    text = deck(model, "1002, 1, 3\n" + plain, "1001, 2, 0.5, 0.5\n1002, 0, 0, 0")
    text += "*STEP\n*STATIC\n*BOUNDARY, OP=NEW\nFIX, 1, 3\n*CLOAD\n1001, 2, 1.\n*END STEP\n"
    p, path, _ = run(args, "rigid_held_once", text)
    check(p.returncode != 0 and "every step" in p.stderr and
          re.search(re.escape(os.path.basename(path)) + r":\d+: \*RIGID BODY", p.stderr) is not None,
          "refusal rigid_held_once: %s" % (p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "(none)"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solver", required=True)
    ap.add_argument("--backend", default=os.environ.get("DUCTILE_BACKEND", "cpu"))
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    tmp = None
    if not args.work:
        tmp = args.work = tempfile.mkdtemp(prefix="mpc_decks_")
    try:
        for f in (rigid_rotation, rigid_force, rigid_two_steps, rigid_generated, rigid_elset, meanrot, meanrot_free, job_json, refusals):
            f(args)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
