#!/usr/bin/env python3
"""3D elastic cantilever, end shear load: mesh convergence to Timoshenko beam theory.

Beam L = 10 (x), b = 1 (y), h = 1 (z), E = 1000, nu = 0.3, all DOFs fixed on x = 0, a uniform
traction (0, 0, -P/(b h)) on the end face x = L (face S4 of the hexahedra / the matching tet
faces), P = 1. Tip deflection = mean U_z over the end-face nodes (summary node_sets U_mean).

Reference: Timoshenko beam  delta = P L^3 / (3 E I) + P L / (kappa G A), I = b h^3 / 12,
kappa = 5/6 (rectangular section), G = E / (2 (1 + nu)), A = b h  -> delta = 4.031200.
The fully clamped 3D root (also restraining the Poisson contraction) and the 3D stress state
differ from beam theory by well under 1 %, so the assertions are:
  * the error |delta_h - delta| / delta decreases monotonically with refinement for hex8 (full
    integration) and for tet10;
  * the finest hex8 (full integration, 80x8x8) and the finest tet10 (20x4x4 hexes, 6 tets
    each) are within 2 % of beam theory; B-bar hex8 results are reported and must converge
    monotonically from the 20x2x2 mesh on (with one element through the thickness the mean
    dilatation removes the volumetric part of the bending strain and the element is too soft);
  * the Richardson-extrapolated hex8 value (order observed from the three finest meshes) is
    within 1 % of beam theory;
  * the 20-node hexahedra, hex20 (3x3x3 points, C3D20) and hex20r (2x2x2, C3D20R), converge
    monotonically too, their finest meshes (40x4x4) are within 1 % of beam theory and within
    0.2 % of each other (the 3D solution they converge to lies about 0.8 % below beam theory).
    hex20r starts at 2 elements through the section: with one, the reduced rule's spurious
    mode propagates along the row of elements and the tangent is singular, as CalculiX warns
    for C3D20R.
Slow-ish (80x8x8 hex8, ~20k DOFs): labelled "slow".
"""
import vlib

L, B, H = 10.0, 1.0, 1.0
E, NU, P = 1000.0, 0.3, 1.0
I = B * H ** 3 / 12
G = E / (2 * (1 + NU))
KAPPA = 5.0 / 6.0
DELTA = P * L ** 3 / (3 * E * I) + P * L / (KAPPA * G * B * H)


def solve(args, wd, etype, n, form="full"):
    nx, ny, nz = n
    if etype == "hex8":
        mesh = vlib.box_hex8(nx, ny, nz, L, B, H)
    elif etype in ("hex20", "hex20r"):
        mesh = vlib.box_hex20(nx, ny, nz, L, B, H, etype)
    else:
        mesh = vlib.tet4_to_tet10(vlib.box_tet4(nx, ny, nz, L, B, H))
    tol = 1e-9
    ns = {"root": mesh.node_ids(lambda x, y, z: x < tol), "tip": mesh.node_ids(lambda x, y, z: x > L - tol)}
    surf = {"end": mesh.faces(lambda x, y, z: x > L - tol)}
    steps = [{"name": "load", "increments": 1, "boundary": [{"node_set": "root", "fixed": "all"}],
              "loads": [{"type": "traction", "surface": "end", "value": [0.0, 0.0, -P / (B * H)]}]}]
    j = vlib.job(mesh, [vlib.material("m", E, NU)],
                 [{"element_set": "all", "material": "m", "kind": "solid", "formulation": form}], steps,
                 node_sets=ns, surfaces=surf,
                 solver={"newton": {"force_tolerance": 1e-10}, "linear": {"tolerance": 1e-12}},
                 output={"vtu": False})
    res = vlib.run(args, j, wd, "%s_%s_%dx%dx%d" % (etype, form, nx, ny, nz))
    return res, mesh


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("cantilever")
    series = [("hex8", "full", [(10, 1, 1), (20, 2, 2), (40, 4, 4), (80, 8, 8)]),
              ("hex8", "bbar", [(10, 1, 1), (20, 2, 2), (40, 4, 4), (80, 8, 8)]),
              ("tet10", "auto", [(5, 1, 1), (10, 2, 2), (20, 4, 4)]),
              ("hex20", "auto", [(5, 1, 1), (10, 1, 1), (20, 2, 2), (40, 4, 4)]),
              ("hex20r", "auto", [(10, 2, 2), (20, 2, 2), (40, 4, 4)])]
    results = {}
    with vlib.TempDir(args.keep) as wd:
        for etype, form, meshes in series:
            errs = []
            for n in meshes:
                res, mesh = solve(args, wd, etype, n, form)
                vlib.require_ok(chk, res, "%s %s %s" % (etype, form, n))
                tip = res.summary["node_sets"]["tip"]
                d = -tip["U_mean"][2]
                rz = res.summary["node_sets"]["root"]["RF"][2]
                chk.expect(abs(rz - P) <= 1e-8 * P, "%s %s %s: root reaction %.12g != P" % (etype, form, n, rz))
                errs.append((d, (d - DELTA) / DELTA))
                chk.record("%s_%s_%dx%dx%d" % (etype, form, n[0], n[1], n[2]), (d - DELTA) / DELTA)
            results[(etype, form)] = errs
            ae = [abs(e) for _, e in errs]
            if form == "bbar":  # B-bar: too soft on 1 element through the thickness, then converges
                ae = ae[1:]
            chk.expect(all(ae[i + 1] < ae[i] for i in range(len(ae) - 1)),
                       "%s %s: error does not decrease monotonically: %s" % (etype, form, ae))
    chk.le("hex8_full_finest_abs_err", abs(results[("hex8", "full")][-1][1]), 0.02)
    chk.le("tet10_finest_abs_err", abs(results[("tet10", "auto")][-1][1]), 0.02)
    chk.le("hex20_finest_abs_err", abs(results[("hex20", "auto")][-1][1]), 0.01)
    chk.le("hex20r_finest_abs_err", abs(results[("hex20r", "auto")][-1][1]), 0.01)
    d20, d20r = results[("hex20", "auto")][-1][0], results[("hex20r", "auto")][-1][0]
    chk.le("hex20_vs_hex20r_finest", abs(d20 - d20r) / abs(d20r), 0.002)
    # Richardson extrapolation with the observed order from the three finest hex8 meshes.
    d0, d1, d2 = [d for d, _ in results[("hex8", "full")][-3:]]
    r = (d0 - d1) / (d1 - d2)
    rich = d2 + (d2 - d1) / (r - 1)
    chk.record("hex8_observed_order", __import__("math").log(r, 2))
    chk.le("hex8_richardson_abs_err", abs(rich - DELTA) / DELTA, 0.01)
    chk.record("delta_ref", DELTA)
    chk.finish()


if __name__ == "__main__":
    main()
