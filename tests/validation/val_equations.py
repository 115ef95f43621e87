#!/usr/bin/env python3
"""Linear multi-point constraints ("equations", CalculiX's *EQUATION) against exact solutions.

A hex8 bar of length L = 2 and section 1 x 1 (4 x 2 x 2 elements) on symmetry supports (u_x = 0
on x = 0, u_y = 0 on y = 0, u_z = 0 on z = 0). Every node of the end face x = L except the
master corner (L, 0, 0) is tied to it by an equation u_x(node) - u_x(master) = 0, so the face
stays plane and the bar is in uniaxial stress. Cases:

  force      a force F on the master only:  u = F/(E A) (x, -nu y, -nu z), sigma_xx = F / A
             (every hex8 reproduces this linear field, so the answer is exact to rounding:
             tolerance 1e-10 relative to the largest value);
  cascade    the tied nodes chained, each to the previous one (resolved through the chain), the
             equations scaled (2 u_n - 2 u_prev = 0) and F applied to the last node of the chain,
             a dependent DOF (its load goes to the master through T^T): the same answer, 1e-10;
             then with the jacobi, two_level and amg preconditioners and the matrix-free
             operator (every linear-solver path under the reduced system), 1e-10;
  plastic    J2 with linear hardening, the master displaced by delta = 0.01 L in 4 increments
             (yield at about a fifth of it): the tied run against the same bar with the whole
             end face prescribed u_x = delta (no equations), U and S to 1e-8 of their maxima
             (the two runs converge to force_tolerance 1e-12 by different paths), and the
             exact uniaxial answer sigma_xx = sigma_y + H/(E+H) (E eps - sigma_y) at the end,
             1e-8 relative.

On --backend cuda (label gpu) every run is also solved on the CPU backend and compared
(vlib.cross_check_cpu)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vlib  # noqa: E402

E, NU, F = 200000.0, 0.3, 1000.0
L, NX, NY, NZ = 2.0, 4, 2, 2
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
        "end": m.node_ids(lambda x, y, z: abs(x - L) < eps),
        "master": m.node_ids(lambda x, y, z: abs(x - L) < eps and abs(y) < eps and abs(z) < eps),
    }
    return m, sets


def supports():
    return [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]},
            {"node_set": "z0", "fixed": ["z"]}]


def tie_equations(sets, chain, scale):
    master = sets["master"][0]
    others = [n for n in sets["end"] if n != master]
    eqs, prev = [], master
    for n in others:
        eqs.append({"terms": [[n, "x", scale], [prev if chain else master, 1, -scale]]})
        prev = n
    return eqs, others


def max_rel(a, b):
    scale = max(abs(v) for t in b for v in t)
    return max(abs(x - y) for ta, tb in zip(a, b) for x, y in zip(ta, tb)) / scale


def elastic_case(args, chk, tmp, name, chain, scale, load_last, linear=None):
    m, sets = bar()
    eqs, others = tie_equations(sets, chain, scale)
    sets["loaded"] = [others[-1]] if load_last else sets["master"]
    step = {"name": "pull", "boundary": supports(),
            "loads": [{"type": "force", "node_set": "loaded", "value": [F, 0.0, 0.0]}]}
    solver = json.loads(json.dumps(vlib.TIGHT_SOLVER))
    solver["linear"].update(linear or {})
    j = vlib.job(m, [vlib.material(E=E, nu=NU)], [{"element_set": "all", "material": "mat", "kind": "solid"}],
                 [step], node_sets=sets, solver=solver)
    j["equations"] = eqs
    res = vlib.run(args, j, tmp, name)
    vlib.require_ok(chk, res, name)
    v = res.vtu(-1)
    s = F / (E * 1.0)  # strain F / (E A), A = 1
    exact = [(s * x, -NU * s * y, -NU * s * z) for x, y, z in m.nodes]
    chk.le(name + ".U", max_rel(v["point"]["U"], exact), TOL)
    sxx = [t[0] for t in v["point"]["S"]]
    others_s = [abs(c) for t in v["point"]["S"] for c in t[1:]]
    chk.le(name + ".Sxx", max(abs(x - F) for x in sxx) / F, TOL)
    chk.le(name + ".S_other", max(others_s) / F, TOL)


def two_bodies(args, chk, tmp, pc):
    """Bar A on symmetry supports and bar B beyond it, B's nodes at x = L (their own, coincident
    with A's) tied to A's in x, y and z: B has no support of its own, so the stiffness without
    the equations is singular (6 rigid-body modes of B), and only the reduced system is
    definite. A traction sigma on B's end: u = sigma/E (x, -nu y, -nu z) exactly, 1e-10."""
    a = vlib.box_hex8(NX, NY, NZ, L, 1.0, 1.0)
    b = vlib.box_hex8(NX, NY, NZ, L, 1.0, 1.0)
    off = len(a.nodes)
    m = vlib.Mesh(3)
    m.nodes = list(a.nodes) + [(x + L, y, z) for x, y, z in b.nodes]
    m.elems = list(a.elems) + [(t, [n + off for n in conn]) for t, conn in b.elems]
    eps, sigma = 1e-12, 100.0
    sets = {
        "x0": m.node_ids(lambda x, y, z: abs(x) < eps),
        "y0": [n for n in m.node_ids(lambda x, y, z: abs(y) < eps) if n <= off],
        "z0": [n for n in m.node_ids(lambda x, y, z: abs(z) < eps) if n <= off],
    }
    at = {tuple(round(c, 9) for c in m.nodes[n - 1]): n for n in range(1, off + 1)}
    eqs = []
    for n in range(off + 1, len(m.nodes) + 1):
        x = m.nodes[n - 1]
        if abs(x[0] - L) < eps:
            for d in ("x", "y", "z"):
                eqs.append({"terms": [[n, d, 1.0], [at[tuple(round(c, 9) for c in x)], d, -1.0]]})
    end = m.faces(lambda x, y, z: abs(x - 2 * L) < eps)
    step = {"name": "pull", "boundary": supports(),
            "loads": [{"type": "traction", "surface": "end", "value": [sigma, 0.0, 0.0]}]}
    solver = json.loads(json.dumps(vlib.TIGHT_SOLVER))
    solver["linear"]["preconditioner"] = pc
    j = vlib.job(m, [vlib.material(E=E, nu=NU)], [{"element_set": "all", "material": "mat", "kind": "solid"}],
                 [step], node_sets=sets, surfaces={"end": end}, solver=solver)
    j["equations"] = eqs
    name = "two_bodies_" + pc
    res = vlib.run(args, j, tmp, name)
    vlib.require_ok(chk, res, name)
    s = sigma / E
    exact = [(s * x, -NU * s * y, -NU * s * z) for x, y, z in m.nodes]
    chk.le(name + ".U", max_rel(res.vtu(-1)["point"]["U"], exact), TOL)


def plastic_case(args, chk, tmp):
    m, sets = bar()
    delta = 0.01 * L
    mat = vlib.material(E=E, nu=NU, plastic={"yield_stress": SY,
                                              "hardening": {"type": "linear", "modulus": H}})
    sec = [{"element_set": "all", "material": "mat", "kind": "solid"}]
    tied = {"name": "stretch", "increments": 4,
            "boundary": supports() + [{"node_set": "master", "displacement": {"x": delta}}]}
    whole = {"name": "stretch", "increments": 4,
             "boundary": supports() + [{"node_set": "end", "displacement": {"x": delta}}]}
    j = vlib.job(m, [mat], sec, [tied], node_sets=sets, solver=vlib.TIGHT_SOLVER)
    j["equations"], _ = tie_equations(sets, False, 1.0)
    res = vlib.run(args, j, tmp, "plastic_tied")
    vlib.require_ok(chk, res, "plastic_tied")
    ref = vlib.run(args, vlib.job(m, [mat], sec, [whole], node_sets=sets, solver=vlib.TIGHT_SOLVER),
                   tmp, "plastic_face")
    vlib.require_ok(chk, ref, "plastic_face")
    a, b = res.vtu(-1), ref.vtu(-1)
    chk.le("plastic.U_vs_face", max_rel(a["point"]["U"], b["point"]["U"]), TOL_PLASTIC)
    chk.le("plastic.S_vs_face", max_rel(a["point"]["S"], b["point"]["S"]), TOL_PLASTIC)
    eps = delta / L
    exact = SY + H / (E + H) * (E * eps - SY)
    chk.le("plastic.Sxx", max(abs(t[0] - exact) for t in a["point"]["S"]) / exact, TOL_PLASTIC)
    chk.expect(res.history[-1]["plastic_points"] > 0, "the tied bar did not yield")


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("equations")
    with vlib.TempDir(args.keep) as tmp:
        elastic_case(args, chk, tmp, "force", chain=False, scale=1.0, load_last=False)
        elastic_case(args, chk, tmp, "cascade", chain=True, scale=2.0, load_last=True)
        for pc in ("jacobi", "two_level", "amg"):
            elastic_case(args, chk, tmp, pc, chain=True, scale=1.0, load_last=True, linear={"preconditioner": pc})
        elastic_case(args, chk, tmp, "matrix_free", chain=False, scale=1.0, load_last=False,
                     linear={"operator": "matrix_free"})
        for pc in ("block_jacobi", "two_level", "amg"):
            two_bodies(args, chk, tmp, pc)
        plastic_case(args, chk, tmp)
    chk.finish()


if __name__ == "__main__":
    main()
