#!/usr/bin/env python3
"""Kiran's unit cube: uniaxial tension with linear isotropic hardening, three load steps.

Problem (same as examples' unit cube / Kiran's job): one hex8 on [0,1]^3, rollers on x=0, y=0,
z=0, pressure -200, -400, -600 on the top face (negative pressure = tension), E = 200000 MPa,
nu = 0.3, sigma_y = 450, linear hardening H = 66000, one increment per step.

Reference: the analytical uniaxial-stress solution ([Kiran2023, Sec. 3.2.1.1]):
  eps_p  = max(0, (sigma - sigma_y) / H)            -> 0, 0, 150/66000 = 2.2727...e-3
  u_z    = sigma / E + eps_p                        -> 1e-3, 2e-3, 5.272727...e-3
  eps_x  = eps_y = -nu sigma / E - eps_p / 2        -> -3e-4, -6e-4, -2.036363...e-3
u_z from U_z of the top nodes, eps_x from U_x of the x=1 nodes (and eps_y from U_y at y=1),
eps_p from PEEQ (PointData and CellData), sigma_zz from CellData S.
Tolerance: 1e-8 relative (absolute 1e-12 for the zero PEEQ values). Newton iterations <= 3
per increment (elastic steps converge in 2, the plastic step in 3 with the consistent tangent).
"""
import vlib

E, NU, SY, H = 200000.0, 0.3, 450.0, 66000.0
LOADS = [200.0, 400.0, 600.0]


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("kiran_cube")
    mesh = vlib.box_hex8(1, 1, 1)
    ns = {"x0": mesh.node_ids(lambda x, y, z: x == 0), "y0": mesh.node_ids(lambda x, y, z: y == 0),
          "z0": mesh.node_ids(lambda x, y, z: z == 0), "top": mesh.node_ids(lambda x, y, z: z == 1)}
    bc = [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]},
          {"node_set": "z0", "fixed": ["z"]}]
    steps = [{"name": "%g" % s, "increments": 1, "boundary": bc,
              "loads": [{"type": "pressure", "surface": "top", "value": -s}]} for s in LOADS]
    mat = vlib.material("steel", E, NU, {"yield_stress": SY, "hardening": {"type": "linear", "modulus": H}})
    j = vlib.job(mesh, [mat], [{"element_set": "all", "material": "steel", "kind": "solid"}], steps,
                 node_sets=ns, surfaces={"top": mesh.faces(lambda x, y, z: z == 1)},
                 output={"monitors": [{"name": "uz_top", "node_set": "top", "quantity": "U", "component": "z"}]})
    with vlib.TempDir(args.keep) as wd:
        res = vlib.run(args, j, wd, "cube")
        vlib.require_ok(chk, res, "cube job")
        ends = res.step_end_vtus()
        vt = {s: res.vtu(f) for s, f in ends.items()}
    err_u = err_ex = err_p = err_s = 0.0
    max_newton = 0
    for s, sig in enumerate(LOADS, start=1):
        ep = max(0.0, (sig - SY) / H)
        uz = sig / E + ep
        ex = -NU * sig / E - ep / 2
        v = vt[s]
        U = v["point"]["U"]
        for n in ns["top"]:
            err_u = max(err_u, vlib.relerr(U[n - 1][2], uz))
        for n in mesh.node_ids(lambda x, y, z: x == 1):
            err_ex = max(err_ex, vlib.relerr(U[n - 1][0], ex))
        for n in mesh.node_ids(lambda x, y, z: y == 1):
            err_ex = max(err_ex, vlib.relerr(U[n - 1][1], ex))
        peeq = [p[0] for p in v["point"]["PEEQ"]] + [p[0] for p in v["cell"]["PEEQ"]]
        for p in peeq:
            e = abs(p - ep) / ep if ep > 0 else abs(p)
            if ep == 0:
                chk.expect(e <= 1e-12, "step %d: PEEQ %.3e should be 0" % (s, p))
            else:
                err_p = max(err_p, e)
        for c in v["cell"]["S"]:
            err_s = max(err_s, vlib.relerr(c[2], sig))
        mon = [h for h in res.history if h["step"] == s][-1]["uz_top"]
        err_u = max(err_u, vlib.relerr(mon, uz))
    for h in res.history:
        max_newton = max(max_newton, int(h["newton_iterations"]))
    chk.expect(len(res.history) == 3, "expected 3 increments, history has %d" % len(res.history))
    chk.le("uz_err_rel", err_u, 1e-8)
    chk.le("eps_lat_err_rel", err_ex, 1e-8)
    chk.le("peeq_err_rel", err_p, 1e-8)
    chk.le("szz_err_rel", err_s, 1e-8)
    chk.record("max_newton", max_newton)
    chk.expect(max_newton <= 3, "Newton iterations per increment %d > 3" % max_newton)
    chk.finish()


if __name__ == "__main__":
    main()
