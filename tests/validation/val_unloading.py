#!/usr/bin/env python3
"""Elastic unloading after nonuniform plastic flow (cantilever bending, yield at the root).

Brick L = 4 (x) x 1 x 1, hex8 10x3x3, all DOFs fixed on x = 0, end traction (0, 0, -P) on x = L
with P = 15.5 (elastic root fibre stress 6 P L / (b h^2) = 372 > sigma_y = 250, below the plastic
collapse load 15.6), E = 200000, nu = 0.3, linear hardening H = 2000.
Step 1 loads (4 increments), step 2 removes the load completely (2 increments).

References (exact properties of the continuum and discrete problem, no formula needed):
 (i)   unloading from a state with |sigma - sigma_y| drop well below 2 sigma_y is elastic:
       PEEQ (CellData averages of the integration points and PointData) at the end of step 2
       equals that at the end of step 1 to 1e-12 absolute;
 (ii)  with no external load the residual stress is self-equilibrated: the reaction force
       sum over the clamped set (summary node_sets RF and the VTU RF) is zero to 1e-8 relative
       to the step-1 reaction (Newton force tolerance 1e-12);
 (iii) the test is not vacuous: plasticity occurred (max PEEQ > 2e-5, and some cells elastic)
       and the residual stress is nonzero: max Mises (CellData) > 1 % of sigma_y.
"""
import vlib

L, B, H = 4.0, 1.0, 1.0
E, NU, SY, HARD = 200000.0, 0.3, 250.0, 2000.0
P = 15.5


def build():
    m = vlib.box_hex8(10, 3, 3, L, B, H)
    ns = {"root": m.node_ids(lambda x, y, z: x < 1e-9)}
    surf = {"end": m.faces(lambda x, y, z: x > L - 1e-9)}
    clamp = [{"node_set": "root", "fixed": "all"}]
    steps = [{"name": "load", "increments": 4, "boundary": clamp,
              "loads": [{"type": "traction", "surface": "end", "value": [0.0, 0.0, -P]}]},
             {"name": "unload", "increments": 2, "boundary": clamp,
              "loads": [{"type": "traction", "surface": "end", "value": [0.0, 0.0, 0.0]}]}]
    mat = vlib.material("steel", E, NU, {"yield_stress": SY, "hardening": {"type": "linear", "modulus": HARD}})
    return vlib.job(m, [mat], [{"element_set": "all", "material": "steel", "kind": "solid"}], steps,
                    node_sets=ns, surfaces=surf, solver=vlib.TIGHT_SOLVER), ns


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("unloading")
    j, ns = build()
    with vlib.TempDir(args.keep) as wd:
        res = vlib.run(args, j, wd, "unload")
        vlib.require_ok(chk, res, "unloading job")
        ends = res.step_end_vtus()
        v1, v2 = res.vtu(ends[1]), res.vtu(ends[2])
    # (i) PEEQ frozen
    dpe = max(abs(a[0] - b[0]) for a, b in zip(v1["cell"]["PEEQ"], v2["cell"]["PEEQ"]))
    dpn = max(abs(a[0] - b[0]) for a, b in zip(v1["point"]["PEEQ"], v2["point"]["PEEQ"]))
    chk.le("peeq_change_cell", dpe, 1e-12)
    chk.le("peeq_change_point", dpn, 1e-12)
    pe = [p[0] for p in v1["cell"]["PEEQ"]]
    chk.record("max_peeq", max(pe))
    chk.expect(max(pe) > 2e-5, "no plastic flow in step 1 (max PEEQ %.3e): test is vacuous" % max(pe))
    chk.expect(min(pe) == 0.0, "every cell yielded: not a nonuniform plastic state")
    # (ii) self-equilibrium
    rf1 = [sum(v1["point"]["RF"][n - 1][k] for n in ns["root"]) for k in range(3)]
    rf2 = [sum(v2["point"]["RF"][n - 1][k] for n in ns["root"]) for k in range(3)]
    ref = max(abs(c) for c in rf1)
    chk.expect(abs(abs(rf1[2]) - P * B * H) < 1e-6 * P, "step-1 root reaction %.10g != P" % rf1[2])
    rs = res.summary["node_sets"]["root"]["RF"]
    e_rf = max(max(abs(c) for c in rf2), max(abs(c) for c in rs)) / ref
    chk.le("residual_reaction_rel", e_rf, 1e-8)
    # (iii) residual stress present
    mm = max(p[0] for p in v2["cell"]["MISES"])
    chk.record("residual_mises/sy", mm / SY)
    chk.expect(mm > 0.01 * SY, "residual Mises %.3g <= 1%% of sigma_y: test is vacuous" % mm)
    chk.finish()


if __name__ == "__main__":
    main()
