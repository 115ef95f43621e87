#!/usr/bin/env python3
"""Hardening laws under a tension-compression-tension cycle on one hex8 (uniaxial stress).

Unit cube, rollers on x = 0, y = 0, z = 0, prescribed u_z on z = 1 (= eps_zz): three steps to
eps = +5e-3, -5e-3, +6e-3 with 5 increments each. E = 200000, nu = 0.3, sigma_y0 = 250.
Materials: linear isotropic, Voce, table (piecewise linear, constant beyond the last point),
linear kinematic (Prager) on perfect plasticity, combined linear isotropic + kinematic, and
Voce + kinematic.

Reference: an independent 1D return mapping written here (uniaxial stress is exactly 1D for
J2 with Prager kinematic hardening: back stress alpha = H_kin eps_p in 1D, yield
|sigma - alpha| = sigma_y(p)); evaluated at the same increment ends (backward Euler is exact
for the piecewise-monotone 1D path). Compared: sigma_zz (CellData S) and PEEQ (CellData) at
every increment. Tolerance 1e-8 relative to sigma_y0 (stress) and 1e-8 relative to max PEEQ.
"""
import vlib

E, NU, SY0 = 200000.0, 0.3, 250.0
TARGETS = [5e-3, -5e-3, 6e-3]
NINC = 5

MATERIALS = {
    "linear": ({"type": "linear", "modulus": 10000.0}, 0.0),
    "voce": ({"type": "voce", "modulus": 1000.0, "q": 150.0, "b": 300.0}, 0.0),
    "table": ({"type": "table", "points": [[250.0, 0.0], [300.0, 0.002], [340.0, 0.006], [360.0, 0.015]]}, 0.0),
    "kinematic": ({"type": "perfect"}, 15000.0),
    "combined": ({"type": "linear", "modulus": 5000.0}, 10000.0),
    "voce_kinematic": ({"type": "voce", "modulus": 0.0, "q": 100.0, "b": 500.0}, 8000.0),
}


def yield_stress(h, p):
    t = h["type"]
    if t == "perfect":
        return SY0
    if t == "linear":
        return SY0 + h["modulus"] * p
    if t == "voce":
        import math
        return SY0 + h.get("modulus", 0.0) * p + h["q"] * (1 - math.exp(-h["b"] * p))
    pts = h["points"]
    if p <= pts[0][1]:
        return pts[0][0]
    for (s0, p0), (s1, p1) in zip(pts, pts[1:]):
        if p <= p1:
            return s0 + (s1 - s0) * (p - p0) / (p1 - p0)
    return pts[-1][0]


def uniaxial_path(h, hk, strains):
    """1D backward-Euler return mapping; returns [(sigma, p)] at each strain."""
    ep, alpha, p = 0.0, 0.0, 0.0
    out = []
    for eps in strains:
        s_tr = E * (eps - ep)
        xi = s_tr - alpha
        f = abs(xi) - yield_stress(h, p)
        if f > 0:
            sgn = 1.0 if xi > 0 else -1.0
            g = lambda d: abs(xi) - (E + hk) * d - yield_stress(h, p + d)
            lo, hi = 0.0, abs(xi) / (E + hk)
            for _ in range(200):  # bisection to machine precision (g decreasing)
                mid = 0.5 * (lo + hi)
                if g(mid) > 0:
                    lo = mid
                else:
                    hi = mid
                if hi - lo <= 1e-18:
                    break
            d = 0.5 * (lo + hi)
            ep += sgn * d
            alpha += sgn * hk * d
            p += d
        out.append((E * (eps - ep), p))
    return out


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("hardening_modes")
    mesh = vlib.box_hex8(1, 1, 1)
    ns = {"x0": mesh.node_ids(lambda x, y, z: x == 0), "y0": mesh.node_ids(lambda x, y, z: y == 0),
          "z0": mesh.node_ids(lambda x, y, z: z == 0), "top": mesh.node_ids(lambda x, y, z: z == 1)}
    rollers = [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]},
               {"node_set": "z0", "fixed": ["z"]}]
    steps = [{"name": "s%d" % (i + 1), "increments": NINC,
              "boundary": rollers + [{"node_set": "top", "displacement": {"z": t}}]} for i, t in enumerate(TARGETS)]
    strains, prev = [], 0.0
    for t in TARGETS:
        strains += [prev + (t - prev) * (k + 1) / NINC for k in range(NINC)]
        prev = t
    worst_s = worst_p = 0.0
    with vlib.TempDir(args.keep) as wd:
        for name, (h, hk) in MATERIALS.items():
            plastic = {"hardening": h}
            if h["type"] != "table":
                plastic["yield_stress"] = SY0
            if hk:
                plastic["kinematic_modulus"] = hk
            j = vlib.job(mesh, [vlib.material("m", E, NU, plastic)],
                         [{"element_set": "all", "material": "m", "kind": "solid"}], steps,
                         node_sets=ns, solver=vlib.TIGHT_SOLVER)
            res = vlib.run(args, j, wd, name)
            vlib.require_ok(chk, res, name)
            ref = uniaxial_path(h, hk, strains)
            files = res.vtu_files()
            if len(files) != len(strains):
                chk.fail_now("%s: %d VTU files, expected %d" % (name, len(files), len(strains)))
            pmax = max(p for _, p in ref)
            es = ep = 0.0
            for f, (s_ref, p_ref) in zip(files, ref):
                v = res.vtu(f)
                es = max(es, abs(v["cell"]["S"][0][2] - s_ref) / SY0)
                ep = max(ep, abs(v["cell"]["PEEQ"][0][0] - p_ref) / pmax)
            chk.le("%s_s_err" % name, es, 1e-8)
            chk.le("%s_p_err" % name, ep, 1e-8)
            worst_s, worst_p = max(worst_s, es), max(worst_p, ep)
    chk.finish()


if __name__ == "__main__":
    main()
