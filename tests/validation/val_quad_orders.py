#!/usr/bin/env python3
"""Seed-000's Q_p quadrilaterals (p = 1, 2, 3) and CalculiX's quad8: convergence and the wellbore.

Seed-000 solved its wellbore with hierarchical Q_p elements of orders 1-3 (digest §2.2: the full
tensor-product space, (p+1)^2 Gauss points); quad4, quad9 and quad16 span the same spaces with
Lagrange bases, quad8 is the serendipity element of CalculiX's CPE8 (3 x 3 points).

1. Linear verification ([VilasBoas2020, Sec. 7.1, Fig. 7.2]: "the expected approximation rate" under uniform
   refinement; the thesis gives no numbers). Lame's thick cylinder in plane strain: a = 1 <= r
   <= b = 2, pressure 10 inside, 0 outside, E = 2000, nu = 0.2; quarter model with symmetry
   planes, n x n elements (rings x sectors) for n = 2, 4, 8; the higher-order nodes on the exact
   arcs. Closed form u_r = ((1 - 2 nu) C1 r + C2 / r) / (2G), C1 = p a^2 / (b^2 - a^2),
   C2 = p a^2 b^2 / (b^2 - a^2). Error: max over nodes of |u_h - u| / max |u|. Asserted:
     * the rate on the last refinement, log2(e_4 / e_8), at least p + 0.5 for quad4/quad9/quad16
       (the L-infinity rate of a smooth solution is p + 1) and at least 2.5 for quad8;
     * on the finest mesh e(quad16) < e(quad9) <= e(quad8) < e(quad4): higher order pays;
     * PCG tolerance 1e-14, so the solver's error stays far below e(quad16) (checked > 1e-11).
2. Nonlinear verification ([VilasBoas2020, Sec. 7.1, Fig. 7.3]): its Mohr-Coulomb wellbore (val_wellbore.py's data
   and closed form) on a coarse quarter mesh, 20 graded rings x 8 sectors, with quad4, quad9
   and quad16: the wall displacement u_r(a) against the closed form 7.7381e-4 m within 1.5 %,
   0.1 % and 0.1 % (measured: 0.94 %, 0.012 %, 0.009 %); the higher orders' errors below quad4's.
Measured rates (CPU backend): quad4 1.98, quad8 3.92, quad9 3.96 (nodal superconvergence of
the quadratics), quad16 3.64.
"""
import math

import val_wellbore as wb
import vlib

A, B, P_IN = 1.0, 2.0, 10.0
E, NU = 2000.0, 0.2
G = E / (2 * (1 + NU))
C1 = P_IN * A * A / (B * B - A * A)
C2 = P_IN * A * A * B * B / (B * B - A * A)
ORDERS = {"quad4": 1, "quad8": 2, "quad9": 2, "quad16": 3}
MESHES = (2, 4, 8)
MIN_RATE = {"quad4": 1.5, "quad8": 2.5, "quad9": 2.5, "quad16": 3.5}
WELL_TOL = {"quad4": 1.5e-2, "quad9": 1e-3, "quad16": 1e-3}


def u_exact(r):
    return ((1 - 2 * NU) * C1 * r + C2 / r) / (2 * G)


def lame_job(etype, n):
    m = vlib.quarter_annulus(vlib.graded_radii(A, B, n, 1.0), n, etype)
    ns = {"x0": m.node_ids(lambda x, y: x == 0.0), "y0": m.node_ids(lambda x, y: y == 0.0)}
    surf = {"hole": m.faces(lambda x, y: abs(math.hypot(x, y) - A) < 1e-9)}
    assert len(surf["hole"]) == n
    steps = [{"name": "pressure", "increments": 1,
              "boundary": [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]}],
              "loads": [{"type": "pressure", "surface": "hole", "value": P_IN}]}]
    return m, vlib.job(m, [vlib.material("steel", E, NU)],
                       [{"element_set": "all", "material": "steel", "kind": "plane_strain"}], steps,
                       node_sets=ns, surfaces=surf, solver=vlib.TIGHT_SOLVER, output={"fields": ["U"]})


def nodal_error(m, res):
    U = res.vtu(-1)["point"]["U"]
    err = umax = 0.0
    for (x, y), u in zip(m.nodes, U):
        r = math.hypot(x, y)
        ue = u_exact(r)
        err = max(err, math.hypot(u[0] - ue * x / r, u[1] - ue * y / r))
        umax = max(umax, abs(ue))
    return err / umax


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("quad_orders")
    errors = {}
    with vlib.TempDir(args.keep) as wd:
        for etype in ORDERS:
            errors[etype] = []
            for n in MESHES:
                m, j = lame_job(etype, n)
                res = vlib.run(args, j, wd, "lame_%s_%d" % (etype, n), timeout=120)
                vlib.require_ok(chk, res, "lame %s %d" % (etype, n))
                errors[etype].append(nodal_error(m, res))
            e = errors[etype]
            rate = math.log2(e[-2] / e[-1])
            chk.record("lame_%s_errors" % etype, [float("%.3g" % v) for v in e])
            chk.record("lame_%s_rate" % etype, round(rate, 2))
            chk.expect(rate >= MIN_RATE[etype], "%s: rate %.2f on the last refinement, expected >= %.1f (p + 1 = %d)"
                       % (etype, rate, MIN_RATE[etype], ORDERS[etype] + 1))
        fine = {t: errors[t][-1] for t in ORDERS}
        chk.expect(fine["quad16"] < fine["quad9"] <= fine["quad8"] < fine["quad4"],
                   "finest-mesh errors not ordered by degree: %s" % fine)
        chk.expect(fine["quad16"] > 1e-11, "quad16 error %.3g is near the solver's tolerance: the rate "
                   "measures PCG, not the element" % fine["quad16"])

        # the Mohr-Coulomb wellbore on a coarse mesh
        radii = vlib.graded_radii(wb.A_IN, wb.B_OUT, 20, 1.25)
        u_ref = wb.u_plastic(wb.A_IN)
        chk.record("wellbore_u_ref", u_ref)
        well = {}
        for etype in WELL_TOL:
            m, j = wb.build(radii, etype=etype, nt=8)
            res = vlib.run(args, j, wd, "wellbore_" + etype, timeout=300)
            vlib.require_ok(chk, res, "wellbore " + etype)
            U = res.vtu(-1)["point"]["U"]
            wall = [math.hypot(*u) for (x, y), u in zip(m.nodes, U) if abs(math.hypot(x, y) - wb.A_IN) < 1e-9]
            well[etype] = abs(sum(wall) / len(wall) - u_ref) / u_ref
            chk.record("wellbore_%s_u_wall_error" % etype, float("%.3g" % well[etype]))
            chk.le("wellbore %s u_r(a) error" % etype, well[etype], WELL_TOL[etype])
        chk.expect(well["quad9"] < well["quad4"] and well["quad16"] < well["quad4"],
                   "wellbore: the higher orders are not more accurate than quad4: %s" % well)
    return chk.finish()


if __name__ == "__main__":
    raise SystemExit(main())
