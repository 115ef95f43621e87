#!/usr/bin/env python3
"""Thick-walled cylinder under internal pressure: Lame (elastic), limit pressure, plastic radius.

Quarter annulus a = 1 <= r <= b = 2, plane strain quad4 (default formulation = B-bar), NR x NT
elements (radial x circumferential), u_x = 0 on x = 0, u_y = 0 on y = 0, pressure on the inner
edges (surface faces on r = a). E = 210000, nu = 0.3, sigma_y = 240, perfectly plastic J2.
One job, four steps (each lists the pressure at its end):
  1. p = 50 (1 increment)          elastic
  2. p = 0.90 p_L (automatic)      partly plastic
  3. p = 0.97 p_L (automatic)      must complete
  4. p = 1.05 p_L (automatic)      must fail: exit code 2, completed = false, message contains
                                   "no convergence", wall time < 60 s
References and tolerances:
 (a) Lame, plane strain: u(r) = (1+nu) a^2 p / (E (b^2-a^2)) [(1-2nu) r + b^2/r]; radial
     displacement of every node on r = a and r = b within 0.5 %; sigma_theta of the inner ring
     of elements (CellData S, rotated at the centroid) vs sigma_theta(r_c) = a^2 p/(b^2-a^2)
     (1 + b^2/r_c^2) within 1 % (cell average vs centroid value: O(h^2) difference).
 (b) limit pressure of the perfectly plastic cylinder, plane strain von Mises with the
     incompressible (nu = 1/2 in the plastic zone) sigma_z = (sigma_r + sigma_theta)/2, i.e.
     Tresca with k = sigma_y/sqrt(3):  p_L = (2/sqrt(3)) sigma_y ln(b/a) = 192.09. The last
     converged pressure of step 4 must lie in [0.90, 1.01] p_L (FE collapse load is close to,
     and with a coarse mesh slightly above, the exact one).
 (c) elastic-plastic interface at p = 0.9 p_L, same approximation: c solves
     p = sigma_y/sqrt(3) (2 ln(c/a) + 1 - c^2/b^2). Loose check: the outermost element with
     PEEQ > 0 (CellData) has its centroid within 1.5 element widths of c.
"""
import math

import vlib

A_IN, B_OUT = 1.0, 2.0
E, NU, SY = 210000.0, 0.3, 240.0
NR, NT = 20, 12
P_EL = 50.0
P_L = 2 / math.sqrt(3) * SY * math.log(B_OUT / A_IN)


def lame_u(r, p):
    return (1 + NU) * A_IN ** 2 * p / (E * (B_OUT ** 2 - A_IN ** 2)) * ((1 - 2 * NU) * r + B_OUT ** 2 / r)


def lame_sth(r, p):
    return A_IN ** 2 * p / (B_OUT ** 2 - A_IN ** 2) * (1 + B_OUT ** 2 / r ** 2)


def plastic_radius(p):
    f = lambda c: SY / math.sqrt(3) * (2 * math.log(c / A_IN) + 1 - c * c / B_OUT ** 2) - p
    lo, hi = A_IN, B_OUT
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def annulus():
    return vlib.quarter_annulus_quad4([A_IN + (B_OUT - A_IN) * i / NR for i in range(NR + 1)], NT)


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("cylinder")
    m = annulus()
    rad = lambda x, y: math.hypot(x, y)
    ns = {"x0": m.node_ids(lambda x, y: x == 0.0), "y0": m.node_ids(lambda x, y: y == 0.0),
          "inner": m.node_ids(lambda x, y: abs(rad(x, y) - A_IN) < 1e-9),
          "outer": m.node_ids(lambda x, y: abs(rad(x, y) - B_OUT) < 1e-9)}
    surf = {"inner": m.faces(lambda x, y: abs(rad(x, y) - A_IN) < 1e-9)}
    chk.expect(len(surf["inner"]) == NT, "test setup: %d inner faces" % len(surf["inner"]))
    bc = [{"node_set": "x0", "fixed": ["x"]}, {"node_set": "y0", "fixed": ["y"]}]
    auto = {"type": "automatic", "initial": 0.25, "min": 1e-3, "max": 0.5, "max_cutbacks": 8}

    def step(name, p, inc):
        return {"name": name, "increments": inc, "boundary": bc,
                "loads": [{"type": "pressure", "surface": "inner", "value": p}]}

    pressures = [P_EL, 0.90 * P_L, 0.97 * P_L, 1.05 * P_L]
    steps = [step("elastic", pressures[0], 1), step("p090", pressures[1], auto),
             step("p097", pressures[2], auto), step("p105", pressures[3], auto)]
    mat = vlib.material("steel", E, NU, {"yield_stress": SY, "hardening": {"type": "perfect"}})
    j = vlib.job(m, [mat], [{"element_set": "all", "material": "steel", "kind": "plane_strain"}], steps,
                 node_sets=ns, surfaces=surf,
                 solver={"newton": {"force_tolerance": 1e-9}, "linear": {"tolerance": 1e-12}})
    with vlib.TempDir(args.keep) as wd:
        res = vlib.run(args, j, wd, "cyl", timeout=120)
        chk.record("wall_s", round(res.wall, 2))
        if res.summary is None:
            chk.fail_now("no summary.json (exit %d): %s" % (res.rc, res.stdout[-2000:]))
        files = res.vtu_files()
        incs = res.summary["increments"]
        ends = {}
        for f, inc in zip(files, incs):
            ends[inc["step"]] = f
        vt = {s: res.vtu(f) for s, f in ends.items() if s <= 3}
    s = res.summary
    # (b) collapse
    chk.expect(res.rc == 2, "exit code %d, expected 2 (no convergence beyond the limit load)" % res.rc)
    chk.expect(s.get("completed") is False, "summary completed = %r, expected false" % s.get("completed"))
    chk.expect("no convergence" in s.get("message", ""), "message lacks 'no convergence': %r" % s.get("message"))
    chk.expect(s.get("steps_completed") == 3, "steps_completed = %r, expected 3 (0.97 p_L must converge)"
               % s.get("steps_completed"))
    chk.expect(res.wall < 60.0, "took %.1f s (> 60 s) to give up" % res.wall)
    last = incs[-1]
    if last["step"] == 4:
        p_last = pressures[2] + last["load_factor"] * (pressures[3] - pressures[2])
    else:
        p_last = pressures[last["step"] - 1]
    chk.record("p_last/p_L", p_last / P_L)
    chk.expect(0.90 * P_L <= p_last <= 1.01 * P_L, "last converged pressure %.4g = %.4f p_L not in [0.90, 1.01] p_L"
               % (p_last, p_last / P_L))
    chk.record("reason", s.get("reason"))
    # (a) elastic
    v = vt.get(1)
    if v is None:
        chk.fail_now("no VTU for step 1")
    U = v["point"]["U"]
    eu = 0.0
    for n in ns["inner"] + ns["outer"]:
        x, y = m.nodes[n - 1]
        r = rad(x, y)
        ur = (U[n - 1][0] * x + U[n - 1][1] * y) / r
        eu = max(eu, vlib.relerr(ur, lame_u(r, P_EL)))
    chk.le("lame_u_err_rel", eu, 5e-3)
    es = 0.0
    for e in range(NT):  # inner ring: element (i=0, j) is e = j*NR
        k = e * NR
        cx, cy = vlib.centroid(m, m.elems[k][1])
        r = rad(cx, cy)
        c, sn = cx / r, cy / r
        S = v["cell"]["S"][k]
        sth = S[0] * sn * sn + S[1] * c * c - 2 * S[3] * sn * c
        es = max(es, vlib.relerr(sth, lame_sth(r, P_EL)))
    chk.le("lame_stheta_err_rel", es, 1e-2)
    chk.expect(max(p[0] for p in v["cell"]["PEEQ"]) == 0.0, "step 1 (p = 50) should be elastic")
    # (c) plastic radius at 0.9 p_L
    v = vt.get(2)
    if v is None:
        chk.fail_now("no VTU for step 2")
    c_ref = plastic_radius(pressures[1])
    c_fe = A_IN
    for k, pe in enumerate(v["cell"]["PEEQ"]):
        if pe[0] > 0:
            c_fe = max(c_fe, rad(*vlib.centroid(m, m.elems[k][1])))
    dr = (B_OUT - A_IN) / NR
    chk.record("c_ref", c_ref)
    chk.record("c_fe", c_fe)
    chk.le("plastic_radius_err_in_elements", abs(c_fe - c_ref) / dr, 1.5)
    chk.finish()


if __name__ == "__main__":
    main()
