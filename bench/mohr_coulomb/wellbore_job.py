#!/usr/bin/env python3
"""Seed-000's wellbore (Mohr-Coulomb, plane strain quarter annulus; tests/validation/val_wellbore.py)
at any mesh size, as a job for ductile-solve: the Mohr-Coulomb timing on both backends
(docs/benchmarks.md). The job keeps the solver's defaults (Newton 1e-6, PCG 1e-9, Thomas's
acceleration) and writes no VTU.

  python3 wellbore_job.py NR NT [RATIO [ETYPE]] > wellbore.json
      NR rings, NT sectors; RATIO defaults to 1.08^(60/NR), the test mesh's grading ("-" for the
      default); ETYPE quad4 (default), quad8, quad9 or quad16 ([VilasBoas2020]'s p = 1, 2, 3).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "validation"))
import val_wellbore as wb  # noqa: E402
import vlib  # noqa: E402

wb.NR, wb.NT = int(sys.argv[1]), int(sys.argv[2])
wb.RATIO = float(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "-" else 1.08 ** (60.0 / wb.NR)
etype = sys.argv[4] if len(sys.argv) > 4 else "quad4"
m, job = wb.build(vlib.graded_radii(wb.A_IN, wb.B_OUT, wb.NR, wb.RATIO), etype=etype)
del job["solver"]
job["output"] = {"fields": ["U", "S", "PEEQ"], "vtu": False, "every": wb.NINC}
job["title"] = "wellbore %d x %d %s" % (wb.NR, wb.NT, etype)
json.dump(job, sys.stdout)
