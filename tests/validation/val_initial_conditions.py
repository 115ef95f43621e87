#!/usr/bin/env python3
"""Initial stresses and plastic strains ("initial_conditions", CalculiX's *INITIAL CONDITIONS,
TYPE=STRESS and TYPE=PLASTIC STRAIN) against exact solutions.

A hex8 bar of length L = 2 and section 1 x 1 (4 x 2 x 2 elements) on symmetry supports
(u_x = 0 on x = 0, u_y = 0 on y = 0, u_z = 0 on z = 0), no load. E = 200000, nu = 0.3. Cases
(every field is linear, which every hex8 reproduces: tolerance 1e-10 relative to the largest
value, or absolute 1e-10 x the initial stress for a stress that must vanish):

  free        a uniform initial stress sig0 = (s1, s2, s3, 0, 0, 0) on every element: the free
              body relaxes in the first increment to zero stress and the strain -C^-1 sig0,
              u_i = -(s_i - nu (s_j + s_k)) / E x_i; the reaction at x = 0 is zero;
  held        the same bar with u_x = 0 also on x = L, sig0 = (s, 0, 0, 0, 0, 0): it cannot
              shorten, and sig0 is in equilibrium with the supports: nothing moves (u = 0),
              S = sig0, and the reaction of the end face x = L is the initial stress's force,
              RF_x = s A;
  replaced    the held bar given a wrong stress first, then the right one for element set "all"
              point by point (8 entries, "point" 1-8) and for one element: a later entry
              replaces an earlier one at a point (the same answer as held);
  gradient    sig0_xx = g y (a "gradient" entry, the deck's USER form) with every node held:
              the elements' mean S_xx is g y at their centroids, and the reactions of the end
              face x = L are the stress's force and moment there, sum RF_x = g/2 and
              sum RF_x y = g/3 (both exact only when the points carry g y at their own
              coordinates);
  eigenstrain an initial plastic strain eps_p0 = (e, 0, 0, 0, 0, 0) on an elastic material:
              free: u_x = e x with zero stress; held: sigma_xx = -E e, u_y = nu e y,
              u_z = nu e z, reaction RF_x = -E e A;
  plastic     J2 with linear hardening H, the held bar with sig0_xx = 200 (sigma_y = 250), then
              the end x = L pulled by delta (E delta / L = 150) in 4 increments: the yield
              criterion sees the initial stress, sigma_xx = sigma_y + H/(E+H) (200 + E delta/L
              - sigma_y), 1e-8 relative, and the bar yields; again with the matrix-free
              operator (its element tangents come from the same update).

On --backend cuda (label gpu) every run is also solved on the CPU backend and compared
(vlib.cross_check_cpu)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vlib  # noqa: E402

E, NU = 200000.0, 0.3
# the free bars end with no stress: the CPU cross-check (DUCTILE_CROSS_CHECK_CPU) compares their
# stresses against a strain of 1e-9, not against each backend's round-off of zero
vlib.CROSS_S_FLOOR = 1e-9 * E
L, NX, NY, NZ = 2.0, 4, 2, 2
A = 1.0
SY, H = 250.0, 10000.0
TOL = 1e-10
TOL_PLASTIC = 1e-8


def bar():
    m = vlib.box_hex8(NX, NY, NZ, L, 1.0, 1.0)
    eps = 1e-12
    sets = {
        "x0": m.node_ids(lambda x, y, z: abs(x) < eps),
        "y0": m.node_ids(lambda x, y, z: abs(y) < eps),
        "z0": m.node_ids(lambda x, y, z: abs(z) < eps),
        "x1": m.node_ids(lambda x, y, z: abs(x - L) < eps),
    }
    return m, sets


def supports(held, delta=0.0):
    bc = [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]},
          {"node_set": "z0", "fixed": ["z"]}]
    if held and delta:
        bc.append({"node_set": "x1", "displacement": {"x": delta}})
    elif held:
        bc.append({"node_set": "x1", "fixed": ["x"]})
    return bc


def solve(args, chk, tmp, name, initial, held, mat=None, increments=1, delta=0.0, linear=None):
    m, sets = bar()
    step = {"name": "relax", "boundary": supports(held, delta), "increments": increments}
    solver = json.loads(json.dumps(vlib.TIGHT_SOLVER))
    solver["linear"].update(linear or {})
    j = vlib.job(m, [mat or vlib.material(E=E, nu=NU)],
                 [{"element_set": "all", "material": "mat", "kind": "solid"}], [step],
                 node_sets=sets, solver=solver)
    j["initial_conditions"] = initial
    res = vlib.run(args, j, tmp, name)
    vlib.require_ok(chk, res, name)
    return m, res


def max_rel(a, b):
    scale = max(abs(v) for t in b for v in t)
    return max(abs(x - y) for ta, tb in zip(a, b) for x, y in zip(ta, tb)) / scale


def max_abs(a, b):
    return max(abs(x - y) for ta, tb in zip(a, b) for x, y in zip(ta, tb))


def rf(res, nset):
    return res.summary["node_sets"][nset]["RF"]


def free_case(args, chk, tmp):
    s = (-100.0, 40.0, 25.0)
    m, res = solve(args, chk, tmp, "free", [{"type": "stress", "value": list(s) + [0, 0, 0]}], False)
    v = res.vtu(-1)
    e0 = [-(s[i] - NU * (s[(i + 1) % 3] + s[(i + 2) % 3])) / E for i in range(3)]
    exact = [(e0[0] * x, e0[1] * y, e0[2] * z) for x, y, z in m.nodes]
    chk.le("free.U", max_rel(v["point"]["U"], exact), TOL)
    chk.le("free.S_zero", max(abs(c) for t in v["point"]["S"] for c in t) / 100.0, TOL)
    chk.le("free.RF_zero", max(abs(c) for c in rf(res, "x0")) / 100.0, TOL)


def held_checks(chk, name, m, res, s, lateral):
    """sigma = (s, 0, 0, 0, 0, 0), u = (0, lateral y, lateral z), RF_x(x = L) = s A."""
    v = res.vtu(-1)
    exact_s = [(s, 0, 0, 0, 0, 0)] * len(m.nodes)
    chk.le(name + ".S", max_abs(v["point"]["S"], exact_s) / abs(s), TOL)
    exact_u = [(0.0, lateral * y, lateral * z) for x, y, z in m.nodes]
    chk.le(name + ".U", max_abs(v["point"]["U"], exact_u) / abs(s / E), TOL)
    r = rf(res, "x1")
    chk.le(name + ".RF", abs(r[0] - s * A) / abs(s * A), TOL)


def held_case(args, chk, tmp):
    s = -100.0
    m, res = solve(args, chk, tmp, "held", [{"type": "stress", "value": [s, 0, 0, 0, 0, 0]}], True)
    held_checks(chk, "held", m, res, s, 0.0)
    wrong = {"type": "stress", "element_set": "all", "value": [55, 1, 2, 3, 4, 5]}
    right = [{"type": "stress", "element_set": "all", "point": p, "value": [s, 0, 0, 0, 0, 0]}
             for p in range(1, 9)]
    again = {"type": "stress", "element": 3, "value": [s, 0, 0, 0, 0, 0]}
    m, res = solve(args, chk, tmp, "replaced", [wrong] + right + [again], True)
    held_checks(chk, "replaced", m, res, s, 0.0)


def gradient_case(args, chk, tmp):
    g = -100.0
    grad = [[0, g, 0]] + [[0, 0, 0]] * 5
    m, sets = bar()
    sets["all_nodes"] = list(range(1, len(m.nodes) + 1))
    step = {"name": "hold", "boundary": [{"node_set": "all_nodes", "fixed": ["x", "y", "z"]}]}
    j = vlib.job(m, [vlib.material(E=E, nu=NU)],
                 [{"element_set": "all", "material": "mat", "kind": "solid"}], [step],
                 node_sets=sets, solver=vlib.TIGHT_SOLVER)
    j["initial_conditions"] = [{"type": "stress", "gradient": grad}]
    res = vlib.run(args, j, tmp, "gradient")
    vlib.require_ok(chk, res, "gradient")
    v = res.vtu(-1)
    cells = [vlib.centroid(m, conn) for _, conn in m.elems]
    exact_s = [(g * c[1], 0, 0, 0, 0, 0) for c in cells]
    chk.le("gradient.S_cells", max_abs(v["cell"]["S"], exact_s) / abs(g), TOL)
    # RF on x = L: sum RF_x = int g y dA = g/2, sum RF_x y = int g y^2 dA = g/3 (exact with
    # the point values; constant values per element would give 0.3125 g for the second)
    face = [n - 1 for n in sets["x1"]]
    r = v["point"]["RF"]
    chk.le("gradient.RF", abs(sum(r[n][0] for n in face) - g / 2) / abs(g), TOL)
    chk.le("gradient.RF_moment", abs(sum(r[n][0] * m.nodes[n][1] for n in face) - g / 3) / abs(g), TOL)


def eigenstrain_case(args, chk, tmp):
    e = 1e-3
    ic = [{"type": "plastic_strain", "value": [e, 0, 0, 0, 0, 0]}]
    m, res = solve(args, chk, tmp, "eigen_free", ic, False)
    v = res.vtu(-1)
    chk.le("eigen_free.U", max_rel(v["point"]["U"], [(e * x, 0.0, 0.0) for x, y, z in m.nodes]), TOL)
    chk.le("eigen_free.S_zero", max(abs(c) for t in v["point"]["S"] for c in t) / (E * e), TOL)
    m, res = solve(args, chk, tmp, "eigen_held", ic, True)
    held_checks(chk, "eigen_held", m, res, -E * e, NU * e)


def plastic_case(args, chk, tmp):
    s0 = 200.0
    delta = 150.0 / E * L
    mat = vlib.material(E=E, nu=NU, plastic={"yield_stress": SY,
                                              "hardening": {"type": "linear", "modulus": H}})
    for name, linear in (("plastic", None), ("plastic_matrix_free", {"operator": "matrix_free"})):
        m, res = solve(args, chk, tmp, name, [{"type": "stress", "value": [s0, 0, 0, 0, 0, 0]}], True,
                       mat=mat, increments=4, delta=delta, linear=linear)
        exact = SY + H / (E + H) * (s0 + E * delta / L - SY)
        sxx = [t[0] for t in res.vtu(-1)["point"]["S"]]
        chk.le(name + ".Sxx", max(abs(x - exact) for x in sxx) / exact, TOL_PLASTIC)
        chk.expect(res.history[-1]["plastic_points"] > 0, name + ": the bar did not yield")


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("initial_conditions")
    with vlib.TempDir(args.keep) as tmp:
        free_case(args, chk, tmp)
        held_case(args, chk, tmp)
        gradient_case(args, chk, tmp)
        eigenstrain_case(args, chk, tmp)
        plastic_case(args, chk, tmp)
    chk.finish()


if __name__ == "__main__":
    main()
