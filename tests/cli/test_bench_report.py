#!/usr/bin/env python3
"""scripts/bench_report.py: the tables of docs/benchmarks.md, computed from ductile-bench --json.

Two inputs:
  - a real ductile-bench record (a small custom cube, CPU backend): its floor-table row must
    carry the record's own per-call times and their ratios to the floors (the ratio recomputed
    here), and the seed columns must read n/a (custom sizes have no Table 3.3 row);
  - records with chosen numbers, to check the arithmetic and the met / not-met marks against
    issue 3's thresholds (3x floor, 70% of copy bandwidth, C5 10x faster than the seed's
    345.25 s wall time, seed-003 Table 3.3), including values exactly at a threshold.
Bad input must exit 2 with a message naming the file.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def report(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True, timeout=60)


def table_rows(text):
    """The cells of every markdown table row."""
    for line in text.splitlines():
        if line.startswith("|"):
            yield [c.strip() for c in line.strip().strip("|").split("|")]


def row(text, first_cell):
    """The table rows (of any table) whose first cell is first_cell."""
    return [c for c in table_rows(text) if c[0] == first_cell]


def record(mesh, **over):
    r = {"mesh": mesh, "elements": 1, "dofs": 3, "nnz": 9, "completed": True, "backend": "cuda",
         "device": "test device", "newton_iterations": 5, "pcg_iterations": 4000,
         "seconds_assembly": 0.045, "seconds_stress_and_internal_force": 0.012,
         "seconds_linear_solver": 4.5, "seconds_setup": 2.0, "seconds_total": 7.0,
         "seconds_after_upload": 5.0, "copy_bandwidth_bytes_per_s": 4.0e12,
         "spmv_seconds": 1.0e-3, "spmv_bytes": 2.8e9, "spmv_floor_seconds": 0.7e-3,
         "assembly_per_call_seconds": 9.0e-3, "assembly_floor_seconds": 1.0e-3,
         "stress_per_call_seconds": 2.0e-3, "stress_floor_seconds": 1.0e-3,
         "assembly_calls": 5, "stress_calls": 6, "peak_bytes": 1.0e10,
         "seed_k40c_wall_seconds": 345.25, "date_utc": "2026-11-21T12:00:00Z",
         "threads_option": 0, "host_cpus": 16,
         "seed_k40c": {"newton_iterations": 5, "seconds_assembly": 11.17, "seconds_stress": 1.29,
                       "seconds_internal_force": 1.09, "seconds_linear_solver": 313.74,
                       "seconds_wall": 345.25}}
    r.update(over)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--script", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # 1. a real record
        real = os.path.join(tmp, "real.json")
        p = subprocess.run([a.bench, "--backend", "cpu", "--n", "4", "--threads", "2", "--json", real],
                           capture_output=True, text=True, timeout=300)
        check(p.returncode == 0, f"ductile-bench exit {p.returncode}: {p.stderr!r}")
        r = json.load(open(real))[0]
        check(r["seed_k40c"] is None, f"custom size has a seed row: {r['seed_k40c']!r}")
        check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", r["date_utc"]) is not None,
              f"date_utc {r['date_utc']!r}")
        check(r["threads_option"] == 2, f"threads_option {r['threads_option']}")
        p = report(a.script, real)
        check(p.returncode == 0, f"report exit {p.returncode}: {p.stderr!r}")
        floor_rows = [c for c in row(p.stdout, "custom") if len(c) == 12]
        check(len(floor_rows) == 1, f"one floor row for 'custom' expected:\n{p.stdout}")
        if floor_rows:
            c = floor_rows[0]
            check(c[1] == f"{1e3 * r['assembly_per_call_seconds']:.3f} ({r['assembly_calls']})",
                  f"assembly cell {c[1]!r}")
            want = r["assembly_per_call_seconds"] / r["assembly_floor_seconds"]
            check(c[3] == f"{want:.2f}x", f"assembly ratio {c[3]!r}, expected {want:.2f}x")
            want = r["stress_per_call_seconds"] / r["stress_floor_seconds"]
            check(c[6] == f"{want:.2f}x", f"stress ratio {c[6]!r}, expected {want:.2f}x")
        check(f"PCG tolerance {r['pcg_tolerance']:g} for every correction" in p.stdout,
              f"the header names the fixed linear tolerance:\n{p.stdout}")
        seed_rows = [c for c in row(p.stdout, "custom") if len(c) == 11]
        check(len(seed_rows) == 1 and seed_rows[0][-1] == "n/a" and "(n/a)" in seed_rows[0][4],
              f"seed columns of a custom size: {seed_rows!r}")

        # 2. chosen numbers: C4 exactly at every threshold, C5 beyond them
        gpu = os.path.join(tmp, "gpu.json")
        cpu = os.path.join(tmp, "cpu.json")
        json.dump([record("C4", assembly_per_call_seconds=3.0e-3, stress_per_call_seconds=3.0e-3),
                   record("C5")], open(gpu, "w"))
        json.dump([record("C4", backend="cpu", seconds_after_upload=100.0),
                   record("C5", backend="cpu", seconds_after_upload=100.0, pcg_iterations=4001)],
                  open(cpu, "w"))
        p = report(a.script, gpu, "--cpu", cpu)
        check(p.returncode == 0, f"report exit {p.returncode}: {p.stderr!r}")
        out = p.stdout
        targets = {c[0]: c[1:] for c in table_rows(out) if len(c) == 3}
        want = {"assembly within 3x of its byte floor": ["**not met**", "3.00-9.00x"],
                "stress + internal force within 3x of their byte floor": ["met", "2.00-3.00x"],
                "SpMV at >= 70% of measured copy bandwidth": ["met", "70%"],
                "C5 after upload >= 10x faster than the seed's 345.25 s": ["met", "5.00 s, 69x"]}
        for k, v in want.items():
            check(targets.get(k) == v, f"target {k!r}: {targets.get(k)!r}, expected {v!r}")
        c5 = row(out, "C5")
        seed = [c for c in c5 if len(c) == 11]
        check(seed and seed[0][2] == "5 (5)" and seed[0][4] == "0.0450 (11.17)" and seed[0][5] == "0.0120 (2.38)"
              and seed[0][10] == "69x", f"C5 seed row {seed!r}")
        vs = [c for c in c5 if len(c) == 7]
        check(vs and vs[0][3] == "20.0x" and vs[0][6] == "no: CPU 5 / 4001", f"C5 GPU/CPU row {vs!r}")
        vs4 = [c for c in row(out, "C4") if len(c) == 7]
        check(vs4 and vs4[0][6] == "yes", f"C4 GPU/CPU row {vs4!r}")

        # an adaptive linear tolerance is named in the header
        adaptive = os.path.join(tmp, "adaptive.json")
        json.dump([record("C5", pcg_tolerance=1e-7, pcg_forcing="adaptive")], open(adaptive, "w"))
        p = report(a.script, adaptive)
        check(p.returncode == 0 and "PCG tolerance 1e-07, adaptive per Newton correction" in p.stdout,
              f"adaptive header: exit {p.returncode}, {p.stdout[:300]!r}")

        # 3. bad input
        bad = os.path.join(tmp, "bad.json")
        open(bad, "w").write("[{\"mesh\": \"C1\"}]")
        p = report(a.script, bad)
        check(p.returncode == 2 and "KeyError" in p.stderr, f"missing field: exit {p.returncode}, {p.stderr!r}")
        p = report(a.script, os.path.join(tmp, "absent.json"))
        check(p.returncode == 2 and "absent.json" in p.stderr, f"absent file: exit {p.returncode}, {p.stderr!r}")
    for f in failures:
        print("FAILED:", f)
    if not failures:
        print("bench_report checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
