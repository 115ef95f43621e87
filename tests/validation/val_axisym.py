#!/usr/bin/env python3
"""Thick-walled cylinder under internal pressure as an axisymmetric model (CAX4, CAX8, CAX8R decks)
against Lame's solution.

The deck (written here, read by ductile's importer): the wall a = 1 <= r <= b = 2 (x the radius,
y the axis) of height h = 0.25, NR elements through the wall and one along the axis, the nodes
on y = 0 and y = h held axially (u_y = 0: the plane-strain cylinder, eps_z = 0), pressure
p = 100 on the inner face (*DLOAD P4 of the innermost elements), E = 210000, nu = 0.3. The
deck prints U (*NODE PRINT), the forces of the bottom nodes and S at every point (*EL PRINT).
Reference, Lame (plane strain): with A = p a^2 / (b^2 - a^2) and B = A b^2,
  sigma_r = A - B / r^2,  sigma_theta = A + B / r^2,  sigma_z = 2 nu A,
  u_r = (1 + nu) / E ((1 - 2 nu) A r + B / r).
Checks, each mesh (the tolerances are about 1.5 times what the meshes give, CASES;
docs/validation.md):
  * u_r at every node, relative to u_r(a);
  * sigma_r, sigma_theta (= szz, the hoop stress), sigma_z (= syy) at every integration point
    (radius from the element's shape functions at the point), relative to p; sxy ~ 0;
  * the axial force on the bottom: CalculiX's convention, which ductile's .dat follows, prints
    the forces of a 2-degree sector, so 180 * sum f_y over the bottom nodes = the ring's
    2 pi int sigma_z r dr = 2 pi nu p a^2, relative, 1e-6 (the FE integral of sigma_z r is
    lambda (b u(b) - a u(a)) with u the nodal values, which are close to exact; the .dat
    prints 7 digits);
  * the finer mesh's stress error is at least 3 times smaller than the coarser one's;
  * CAX8R only, the finer mesh perfectly plastic (sigma_y = 240, J2): the limit
    pressure of the plane-strain cylinder, p_L = (2/sqrt 3) sigma_y ln(b/a) = 192.09 (exact for
    the incompressible plastic flow at collapse, docs/validation.md section 4): a step to
    0.97 p_L (automatic increments) must complete, the next, to 1.05 p_L, must stop with exit
    code 2 (no convergence), its last converged pressure in [0.97, 1.01] p_L (measured 1.000).
    The fully integrated elements lock in that flow: CAX8 (3x3 points) still carries 1.05 p_L,
    as C3D20 would (CalculiX recommends the reduced elements for plasticity), and CAX4 (2x2,
    no B-bar on axisymmetric sections) more so.
"""
import json
import math
import os
import subprocess
import sys

import vlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
import ccx_compare  # noqa: E402  (the .dat reader)

A_IN, B_OUT, H = 1.0, 2.0, 0.25
E, NU, P = 210000.0, 0.3, 100.0
LA = P * A_IN ** 2 / (B_OUT ** 2 - A_IN ** 2)
LB = LA * B_OUT ** 2
# meshes (NR) and tolerances: u (rel. u(a)), stresses (rel. p)
# (measured: CAX4 u 2.6e-3, 1.6e-4, S 0.148, 0.041 (the linear element's constant radial strain
# against sigma_r's steep gradient at the bore); CAX8 u 6.3e-5, 2.3e-7, S 2.3e-2, 2.0e-3; CAX8R
# u 5.0e-8, 5.5e-8 (the .dat's 7 digits), S 6.4e-4, 1.4e-5: its 2x2 points are the quadratic
# element's Barlow points)
CASES = {
    "CAX4": [(8, 4e-3, 0.2), (32, 3e-4, 6e-2)],
    "CAX8": [(4, 1e-4, 4e-2), (16, 1e-6, 4e-3)],
    "CAX8R": [(4, 1e-6, 1.5e-3), (16, 1e-6, 5e-5)],
}


def lame(r):
    return LA - LB / r ** 2, LA + LB / r ** 2, 2 * NU * LA, (1 + NU) / E * ((1 - 2 * NU) * LA * r + LB / r)


def deck(etype, nr):
    """Nodes and elements of the wall: corners on an (nr + 1) x 2 grid, CAX8's mid-edge nodes
    after them; returns the deck text and per element its corner radii (for the points)."""
    quad8 = etype != "CAX4"
    nodes, nid = [], {}

    def node(i2, j2):  # on the half-step grid (i2, j2): x = a + i2/2 * dr, y = j2/2 * h
        if (i2, j2) not in nid:
            nid[i2, j2] = len(nodes) + 1
            nodes.append((A_IN + (B_OUT - A_IN) * i2 / (2 * nr), H * j2 / 2))
        return nid[i2, j2]

    for j2 in (0, 2):
        for i in range(nr + 1):
            node(2 * i, j2)
    elems = []
    for i in range(nr):
        c = [node(2 * i, 0), node(2 * i + 2, 0), node(2 * i + 2, 2), node(2 * i, 2)]
        if quad8:
            c += [node(2 * i + 1, 0), node(2 * i + 2, 1), node(2 * i + 1, 2), node(2 * i, 1)]
        elems.append(c)
    s = "*HEADING\naxisymmetric (%s) thick-walled cylinder, %d elements: Lame\n*NODE, NSET=NALL\n" % (etype, nr)
    s += "".join("%d, %.17g, %.17g\n" % (k + 1, x, y) for k, (x, y) in enumerate(nodes))
    s += "*ELEMENT, TYPE=%s, ELSET=EALL\n" % etype
    s += "".join("%d, %s\n" % (e + 1, ", ".join(map(str, c))) for e, c in enumerate(elems))
    ends = [k + 1 for k, (x, y) in enumerate(nodes) if y == 0.0 or y == H]
    bottom = [k + 1 for k, (x, y) in enumerate(nodes) if y == 0.0]
    s += "*NSET, NSET=ENDS\n" + "".join("%d,\n" % n for n in ends)
    s += "*NSET, NSET=BOT\n" + "".join("%d,\n" % n for n in bottom)
    s += "*MATERIAL, NAME=STEEL\n*ELASTIC\n%g, %g\n*SOLID SECTION, ELSET=EALL, MATERIAL=STEEL\n" % (E, NU)
    s += "*STEP\n*STATIC\n*BOUNDARY\nENDS, 2, 2\n*DLOAD\n1, P4, %g\n" % P
    s += "*NODE PRINT, NSET=NALL\nU\n*NODE PRINT, NSET=BOT\nRF\n*EL PRINT, ELSET=EALL\nS\n*END STEP\n"
    return s, nodes, elems


def limit_case(args, chk, etype, nr, wd):
    """The plastic collapse of the finer mesh (see the top): the deck's material made perfectly
    plastic, two steps of automatic increments."""
    sy = 240.0
    p_l = 2 / math.sqrt(3) * sy * math.log(B_OUT / A_IN)
    text = deck(etype, nr)[0].replace("*SOLID SECTION", "*PLASTIC\n%g, 0.\n*SOLID SECTION" % sy)
    head, _, _ = text.partition("*STEP")
    steps = "".join("*STEP\n*STATIC\n0.25, 1., 1e-3, 0.5\n%s*DLOAD\n1, P4, %.17g\n*END STEP\n"
                    % ("*BOUNDARY\nENDS, 2, 2\n" if k == 0 else "", f * p_l) for k, f in enumerate((0.97, 1.05)))
    name = "%s_%d_limit" % (etype.lower(), nr)
    d = os.path.join(wd, name)
    os.makedirs(d)
    with open(os.path.join(d, name + ".inp"), "w") as f:
        f.write(head + steps)
    cmd = [os.path.abspath(args.solver), name + ".inp", "-o", "out", "--backend", args.backend, "--quiet",
           "--threads", "1"]
    p = subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    chk.expect(p.returncode == 2, "%s: exit %d, expected 2 (no convergence past the limit load): %s"
               % (name, p.returncode, p.stdout.decode()[-300:]))
    try:
        with open(os.path.join(d, "out", "summary.json")) as f:
            s = json.load(f)
    except OSError:
        chk.fail_now("%s: no summary.json" % name)
    chk.expect(s.get("steps_completed") == 1, "%s: steps_completed = %r, expected 1 (0.97 p_L must converge)"
               % (name, s.get("steps_completed")))
    last = s["increments"][-1]
    p_last = (0.97 + last["load_factor"] * (1.05 - 0.97)) if last["step"] == 2 else 0.97
    chk.record(name + "_p_last/p_L", round(p_last, 4))
    chk.expect(0.97 <= p_last <= 1.01, "%s: last converged pressure %.4f p_L outside [0.97, 1.01]" % (name, p_last))


def point_radius(nodes, conn, q, npts):
    """The radius of point q (first direction fastest, 2 or 3 Gauss points per direction):
    the elements are rectangles, so x is linear in xi along the radius."""
    n = int(round(math.sqrt(npts)))
    g = {2: [-1 / math.sqrt(3), 1 / math.sqrt(3)], 3: [-math.sqrt(0.6), 0.0, math.sqrt(0.6)]}[n]
    x0, x1 = nodes[conn[0] - 1][0], nodes[conn[1] - 1][0]
    return 0.5 * (x0 + x1) + 0.5 * (x1 - x0) * g[(q - 1) % n]


def run_case(args, chk, etype, nr, tol_u, tol_s, wd):
    text, nodes, elems = deck(etype, nr)
    name = "%s_%d" % (etype.lower(), nr)
    d = os.path.join(wd, name)
    os.makedirs(d)
    with open(os.path.join(d, name + ".inp"), "w") as f:
        f.write(text)
    out = {}
    for backend in [args.backend] + (["cpu"] if args.backend != "cpu" else []):
        cmd = [os.path.abspath(args.solver), name + ".inp", "-o", "out_" + backend, "--backend", backend, "--quiet",
               "--threads", "1"]
        p = subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if not chk.expect(p.returncode == 0, "%s: ductile-solve exit %d: %s" % (name, p.returncode,
                                                                                p.stdout.decode()[-400:])):
            return None
        out[backend] = ccx_compare.step_ends(ccx_compare.read_dat(os.path.join(d, "out_" + backend,
                                                                            "results.dat")))[1]
    blocks = out[args.backend]
    U = blocks["displacements", "NALL"]
    S = blocks["stresses", "EALL"]
    F = blocks["forces", "BOT"]
    if args.backend != "cpu":  # the other backend against the CPU's, to the Newton tolerance
        ref = out["cpu"]
        for key in (("displacements", "NALL"), ("stresses", "EALL")):
            a, b = blocks[key], ref[key]
            scale = max(abs(v) for row in b.values() for v in row)
            diff = max(abs(x - y) for k in b for x, y in zip(a[k], b[k])) / scale
            chk.le("%s_%s_vs_cpu" % (name, key[0]), diff, 1e-6)
    u_a = lame(A_IN)[3]
    eu = max(abs(U[k + 1][0] - lame(x)[3]) for k, (x, y) in enumerate(nodes)) / u_a
    npts = sum(1 for (e, q) in S if e == 1)
    es, exy = 0.0, 0.0
    for (e, q), s in S.items():
        r = point_radius(nodes, elems[e - 1], q, npts)
        sr, st, sz, _ = lame(r)
        es = max(es, abs(s[0] - sr), abs(s[2] - st), abs(s[1] - sz))
        exy = max(exy, abs(s[3]))
    fz = 180.0 * sum(v[1] for v in F.values())
    ez = abs(abs(fz) - 2 * math.pi * NU * P * A_IN ** 2) / (2 * math.pi * NU * P * A_IN ** 2)
    chk.le(name + "_u_err", eu, tol_u)
    chk.le(name + "_s_err", es / P, tol_s)
    chk.le(name + "_sxy", exy / P, 1e-9)
    chk.le(name + "_axial_force_err", ez, 1e-6)
    return es / P


def main():
    args = vlib.parse_args(__doc__, lambda ap: ap.add_argument("--elem", required=True, choices=sorted(CASES)))
    chk = vlib.Check("axisym_" + args.elem.lower())
    with vlib.TempDir(args.keep) as wd:
        errs = [run_case(args, chk, args.elem, nr, tu, ts, wd) for nr, tu, ts in CASES[args.elem]]
        if args.elem == "CAX8R":  # the fully integrated ones lock in the incompressible flow
            limit_case(args, chk, args.elem, CASES[args.elem][-1][0], wd)
    if None not in errs:
        chk.expect(errs[1] * 3 <= errs[0], "stress error does not drop with the finer mesh: %.3e -> %.3e"
                   % tuple(errs))
    chk.finish()


if __name__ == "__main__":
    main()
