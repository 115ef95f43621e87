#!/usr/bin/env python3
"""Seed-000's performance meshes (digest §4.2, Table 7.1) as jobs: the wellbore at refinement
level l = 1..5 with Q_p elements, p = 1, 2, 3 (quad4, quad9, quad16), for the per-call times of
the residual (stress update + internal force) and of the Jacobian (tangent assembly) against
the thesis's Appendix C (docs/benchmarks.md, decision table, Mohr-Coulomb).

The thesis meshed the full annulus with m points per quarter arc and per ray (m = 32 .. 512),
(m - 1) rings graded by 1.175 .. 1.009 and 4 (m - 1) sectors: 4 (m - 1)^2 elements and
2 (p 4 (m - 1)) (p (m - 1) + 1) DOFs. By symmetry we mesh a quarter: 2 (m - 1) rings and
2 (m - 1) sectors, each direction twice as fine, so the element count is the thesis's and the
DOF count within 0.1 % of it (ring grading sqrt of the thesis's ratio, so the element shapes
match too).

Only the per-call costs are compared, so the job solves loosely (one increment, Newton force
tolerance 1e-3, PCG 1e-4): the material state (Mohr-Coulomb, the plastic zone around the hole)
is the thesis's, the linear solver's time is not part of the comparison.

  python3 seed000_level_job.py L P > job.json
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "validation"))
import val_wellbore as wb  # noqa: E402
import vlib  # noqa: E402

M = {1: 32, 2: 64, 3: 128, 4: 256, 5: 512}
RATIO = {1: 1.175, 2: 1.075, 3: 1.04, 4: 1.0175, 5: 1.009}
ETYPE = {1: "quad4", 2: "quad9", 3: "quad16"}

level, p = int(sys.argv[1]), int(sys.argv[2])
n = 2 * (M[level] - 1)
wb.NINC = 1
m, job = wb.build(vlib.graded_radii(wb.A_IN, wb.B_OUT, n, math.sqrt(RATIO[level])), etype=ETYPE[p], nt=n)
job["solver"] = {"newton": {"force_tolerance": 1e-3, "displacement_tolerance": 0.0},
                 "linear": {"tolerance": 1e-4}}
job["output"] = {"fields": ["U"], "vtu": False}
job["title"] = "[VilasBoas2020] level %d, p = %d (%s, %d x %d quarter)" % (level, p, ETYPE[p], n, n)
json.dump(job, sys.stdout)
