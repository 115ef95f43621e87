#!/usr/bin/env python3
"""Smooth rigid strip footing on a Tresca soil (Mohr-Coulomb with phi = 0): Prandtl's limit load.

Plane strain, weightless soil, cohesion c = 10, E = 1e4, nu = 0.3; half model (symmetry at
x = 0) of a 5 x 2.5 block (footing half-width b = 0.5: 5 B wide, 2.5 B deep), rollers on both
sides, bottom fixed; the footing's top nodes (x <= b) pushed down by 0.05 (smooth: u_x free)
in automatic increments of at most 1/20; quad4, B-bar (bench/mohr_coulomb/footing_job.py writes the
job). Meshes 40 x 20 and 80 x 40 (footing 4 and 8 elements wide). Default solver settings:
the consistent Mohr-Coulomb tangent.
Reference: Prandtl (1920): q_u = (2 + pi) c = 51.416 for a smooth strip footing on a
weightless cohesive soil. Compared: the mean footing pressure q = F/b of the last increment
(the monitor of the footing's reaction). Checks:
  * a plateau was reached: q of the last two increments within 0.2 %;
  * each mesh overestimates q_u (a displacement-based lower-order discretisation is too stiff),
    and the finer mesh less: 0 < err(80 x 40) < err(40 x 20);
  * the limit extrapolated to h -> 0 (Richardson, first order, as the two errors show)
    2 q(80) - q(40) within 2 % of q_u.
Measured on the CPU backend: q/c = 5.675 (40 x 20), 5.421 (80 x 40): errors 10.4 % and 5.4 %,
extrapolated 5.167 (+0.5 %).
"""
import math
import os
import subprocess
import sys

import vlib

GEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "mohr_coulomb", "footing_job.py")
C, B_HALF = 10.0, 0.5
Q_U = (2.0 + math.pi) * C


def main():
    args = vlib.parse_args(__doc__)
    chk = vlib.Check("footing")
    q = {}
    with vlib.TempDir(args.keep) as wd:
        for nx, ny in ((40, 20), (80, 40)):
            job = __import__("json").loads(subprocess.check_output([sys.executable, GEN, str(nx), str(ny)]))
            name = "footing_%dx%d" % (nx, ny)
            res = vlib.run(args, job, wd, name, timeout=110)
            vlib.require_ok(chk, res, name)
            last = [-r["footing_force"] / B_HALF for r in res.history[-2:]]
            chk.le("%s_plateau" % name, abs(last[1] - last[0]) / last[1], 2e-3)
            q[nx] = last[1]
            chk.record("%s_q_over_c" % name, round(q[nx] / C, 4))
    e40, e80 = (q[40] - Q_U) / Q_U, (q[80] - Q_U) / Q_U
    chk.expect(0 < e80 < e40, "errors do not fall with the mesh: %.4f (40 x 20), %.4f (80 x 40)" % (e40, e80))
    chk.le("extrapolated_err_rel", abs(2 * q[80] - q[40] - Q_U) / Q_U, 0.02)
    chk.finish()


if __name__ == "__main__":
    main()
