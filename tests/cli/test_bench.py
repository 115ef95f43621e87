#!/usr/bin/env python3
"""ductile-bench as a program: its JSON record of a small cube, the sizes it reports, and the
SpMV floor each backend counts for its own matrix format.

References: the Newton driver's call pattern (one tangent per correction, one stress update per
iteration: corrections + 1 per converged increment), the structured hex8 grid (n^3 elements, (n+1)^3 nodes, 3 DOFs per node; a node has
up to 27 neighbours, so nnz = 9 (3m - 2)^3 with m = n + 1 nodes per edge: exact), the byte
counts of docs/benchmarks.md (CSR on the CPU: 12 B per value + 20 B per row; BSR on the GPU:
8 B per value + 4 B per 3 x 3 block + 4 B per block row + 16 B per row: exact), and Kiran's
cube ([Kiran2023, Sec. 3.2.1.1]): the 800 MPa step converges in 4-5 Newton iterations on C1-C5.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--backend", default=os.environ.get("DUCTILE_BACKEND", "cpu"))
    a = ap.parse_args()
    n = 6
    m = n + 1
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        p = subprocess.run([a.bench, "--backend", a.backend, "--n", str(n), "--threads", "2",
                            "--json", out], capture_output=True, text=True, timeout=300)
        if p.returncode == 2 and "no CUDA device" in p.stderr:
            print("skipped: no CUDA device")
            return 77
        check(p.returncode == 0, f"exit {p.returncode}, stderr {p.stderr!r}")
        check("Newton" in p.stdout and "SpMV" in p.stdout, "summary lines missing:\n" + p.stdout)
        recs = json.load(open(out)) if os.path.exists(out) else []
        check(len(recs) == 1, f"one record expected, got {len(recs)}")
        if not recs:
            return 1
        r = recs[0]
        check(r["completed"] is True, "the cube did not complete")
        check(r["backend"] == a.backend, f"backend {r['backend']!r}")
        check(r["elements"] == n ** 3, f"elements {r['elements']}")
        check(r["dofs"] == 3 * m ** 3, f"dofs {r['dofs']}")
        nnz = 9 * (3 * m - 2) ** 3
        check(r["nnz"] == nnz, f"nnz {r['nnz']}, expected {nnz}")
        check(4 <= r["newton_iterations"] <= 6, f"Newton iterations {r['newton_iterations']}")
        check(r["pcg_iterations"] >= r["newton_iterations"], f"PCG iterations {r['pcg_iterations']}")
        # one increment, no cutback: a tangent per correction, and one stress update more (the
        # one that shows convergence); the per-call times divide by these counts
        check(r["assembly_calls"] == r["newton_iterations"],
              f"assembly calls {r['assembly_calls']}, Newton corrections {r['newton_iterations']}")
        check(r["stress_calls"] == r["newton_iterations"] + 1,
              f"stress calls {r['stress_calls']}, Newton corrections {r['newton_iterations']}")
        for phase, calls in (("assembly", "assembly_calls"), ("stress", "stress_calls")):
            total = r["seconds_assembly" if phase == "assembly" else "seconds_stress_and_internal_force"]
            want = total / r[calls] if r[calls] else 0.0
            check(abs(r[f"{phase}_per_call_seconds"] - want) <= 1e-12 + 1e-9 * want,
                  f"{phase} per call {r[f'{phase}_per_call_seconds']}, total / calls {want}")
        if a.backend == "cpu":
            spmv = 12.0 * nnz + 20.0 * r["dofs"]
        else:
            spmv = 8.0 * nnz + 4.0 * nnz / 9 + 4.0 * (m ** 3 + 1) + 16.0 * r["dofs"]
        check(abs(r["spmv_bytes"] - spmv) <= 1e-9 * spmv, f"spmv_bytes {r['spmv_bytes']}, expected {spmv}")
        bw = r["copy_bandwidth_bytes_per_s"]
        check(bw > 0, "copy bandwidth not measured")
        if bw > 0:
            want = spmv / bw
            check(abs(r["spmv_floor_seconds"] - want) <= 1e-9 * want,
                  f"SpMV floor {r['spmv_floor_seconds']} s, bytes / bandwidth {want} s")
        for k in ("spmv_seconds", "assembly_per_call_seconds", "stress_per_call_seconds",
                  "assembly_floor_seconds", "stress_floor_seconds", "seconds_after_upload"):
            check(r[k] > 0, f"{k} = {r[k]}")
        check(r["seconds_total"] >= r["seconds_after_upload"], "total shorter than after upload")
        # usage errors
        p = subprocess.run([a.bench, "--meshes", "C9"], capture_output=True, text=True, timeout=60)
        check(p.returncode == 64 and "unknown mesh" in p.stderr, f"bad mesh: exit {p.returncode}, {p.stderr!r}")
    for f in failures:
        print("FAILED:", f)
    if not failures:
        print(f"ductile-bench checks passed ({a.backend}: cube n={n}, {r['newton_iterations']} Newton, "
              f"{r['pcg_iterations']} PCG iterations)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
