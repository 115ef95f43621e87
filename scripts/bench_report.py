#!/usr/bin/env python3
"""Markdown tables for docs/benchmarks.md from ductile-bench --json files.

    python3 scripts/bench_report.py GPU.json [--cpu CPU.json] [--label "H200, 2026-11-21"]

GPU.json is the run to report (any backend); CPU.json, when given, a run of the same meshes on
the CPU backend, for the GPU/CPU table. The tables are computed from the files alone, so the
numbers in the docs are the measured ones, not retyped:
  - against the seed (Table 3.3, Tesla K40c, carried in each record as seed_k40c);
  - each phase against its memory-traffic floor (ductile-bench's byte counts / the copy
    bandwidth it measured);
  - issue 3's targets, each marked met or not met from the numbers;
  - GPU against CPU, when --cpu is given.
Exit status 0, or 2 when a file cannot be read or lacks a field.
"""
import argparse
import json
import sys

# issue 3's targets
FLOOR_RATIO_MAX = 3.0        # assembly, stress + internal force: within 3x of the byte floor
SPMV_SHARE_MIN = 0.70        # SpMV at >= 70% of the measured copy bandwidth
SEED_SPEEDUP_MIN = 10.0      # C5 after upload at least 10x faster than the seed's wall time
SEED_SPEEDUP_MESH = "C5"


def load(path):
    with open(path) as f:
        recs = json.load(f)
    if not isinstance(recs, list) or not recs:
        raise ValueError(f"{path}: expected a non-empty JSON array of ductile-bench records")
    return recs


def ratio(a, b):
    return a / b if b else float("nan")


def fmt(x, digits):
    return "n/a" if x is None or x != x else f"{x:.{digits}f}"


def seed_value(r, key):
    s = r.get("seed_k40c")
    if s is None and key == "seconds_wall":  # files written before seed_k40c: the wall time only
        return r.get("seed_k40c_wall_seconds") or None
    return s[key] if s else None


def header(r):
    """The run's backend, device and date, and its linear tolerance: an adaptive one (inexact
    Newton, ductile-bench --forcing adaptive) is not the seed's scheme, so the reader must see it."""
    text = (f"Backend `{r['backend']}` on {r['device'] or 'unknown device'}, "
            f"run {r.get('date_utc', 'date not recorded')}.")
    if "pcg_tolerance" in r:  # files written before the forcing option lack both fields
        forcing = r.get("pcg_forcing", "fixed")
        text += (f" PCG tolerance {r['pcg_tolerance']:g}"
                 + (" for every correction (the seed's scheme)." if forcing == "fixed" else
                    f", {forcing} per Newton correction (inexact Newton, at least {r['pcg_tolerance']:g})."))
    if r.get("preconditioner", "block_jacobi") != "block_jacobi":
        text += f" Preconditioner: {r['preconditioner']}."
    return text


def seed_table(recs):
    rows = ["| mesh | DOFs | Newton (seed) | PCG its | assembly s (seed) | stress+f_int s (seed) | "
            "linear solver s (seed) | setup s | after upload s | seed wall s | speed-up vs seed |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        s_newton = seed_value(r, "newton_iterations")
        s_asm = seed_value(r, "seconds_assembly")
        s_str = None if r.get("seed_k40c") is None else \
            seed_value(r, "seconds_stress") + seed_value(r, "seconds_internal_force")
        s_sol = seed_value(r, "seconds_linear_solver")
        s_wall = seed_value(r, "seconds_wall")
        up = r["seconds_after_upload"]
        rows.append(
            f"| {r['mesh']} | {r['dofs']:,} | {r['newton_iterations']} ({s_newton if s_newton else 'n/a'}) | "
            f"{r['pcg_iterations']} | {fmt(r['seconds_assembly'], 4)} ({fmt(s_asm, 2)}) | "
            f"{fmt(r['seconds_stress_and_internal_force'], 4)} ({fmt(s_str, 2)}) | "
            f"{fmt(r['seconds_linear_solver'], 2)} ({fmt(s_sol, 2)}) | {fmt(r['seconds_setup'], 2)} | "
            f"{fmt(up, 3)} | {fmt(s_wall, 2)} | "
            f"{fmt(ratio(s_wall, up) if s_wall else None, 0)}{'x' if s_wall else ''} |")
    return "\n".join(rows)


def floor_table(recs):
    rows = ["| mesh | assembly ms per call (calls) | floor ms | ratio | stress+f_int ms per call (calls) | "
            "floor ms | ratio | SpMV ms | floor ms | % of copy bandwidth | copy bandwidth TB/s | peak memory GB |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        ra = ratio(r["assembly_per_call_seconds"], r["assembly_floor_seconds"])
        rs = ratio(r["stress_per_call_seconds"], r["stress_floor_seconds"])
        share = ratio(r["spmv_floor_seconds"], r["spmv_seconds"])
        rows.append(
            f"| {r['mesh']} | {fmt(1e3 * r['assembly_per_call_seconds'], 3)} ({r['assembly_calls']}) | "
            f"{fmt(1e3 * r['assembly_floor_seconds'], 3)} | {fmt(ra, 2)}x | "
            f"{fmt(1e3 * r['stress_per_call_seconds'], 3)} ({r['stress_calls']}) | "
            f"{fmt(1e3 * r['stress_floor_seconds'], 3)} | {fmt(rs, 2)}x | {fmt(1e3 * r['spmv_seconds'], 3)} | "
            f"{fmt(1e3 * r['spmv_floor_seconds'], 3)} | {fmt(100 * share, 0)}% | "
            f"{fmt(r['copy_bandwidth_bytes_per_s'] / 1e12, 2)} | {fmt(r['peak_bytes'] / 1e9, 2)} |")
    return "\n".join(rows)


def span(values, digits, unit):
    lo, hi = min(values), max(values)
    return f"{lo:.{digits}f}{unit}" if f"{lo:.{digits}f}" == f"{hi:.{digits}f}" else \
        f"{lo:.{digits}f}-{hi:.{digits}f}{unit}"


def targets(recs):
    """Issue 3's targets over the meshes of the file: (what, met, numbers)."""
    ra = [ratio(r["assembly_per_call_seconds"], r["assembly_floor_seconds"]) for r in recs]
    rs = [ratio(r["stress_per_call_seconds"], r["stress_floor_seconds"]) for r in recs]
    sp = [ratio(r["spmv_floor_seconds"], r["spmv_seconds"]) for r in recs]
    out = [("assembly within 3x of its byte floor", max(ra) <= FLOOR_RATIO_MAX, span(ra, 2, "x")),
           ("stress + internal force within 3x of their byte floor", max(rs) <= FLOOR_RATIO_MAX,
            span(rs, 2, "x")),
           ("SpMV at >= 70% of measured copy bandwidth", min(sp) >= SPMV_SHARE_MIN,
            span([100 * s for s in sp], 0, "%"))]
    for r in recs:
        wall = seed_value(r, "seconds_wall")
        if r["mesh"] == SEED_SPEEDUP_MESH and wall:
            up = r["seconds_after_upload"]
            out.append((f"{SEED_SPEEDUP_MESH} after upload >= 10x faster than the seed's {wall:g} s",
                        ratio(wall, up) >= SEED_SPEEDUP_MIN, f"{up:.2f} s, {ratio(wall, up):.0f}x"))
    return out


def targets_table(recs):
    rows = ["| target (issue 3) | status | measured |", "|---|---|---|"]
    for what, met, numbers in targets(recs):
        rows.append(f"| {what} | {'met' if met else '**not met**'} | {numbers} |")
    return "\n".join(rows)


def cpu_table(gpu, cpu):
    by_mesh = {r["mesh"]: r for r in cpu}
    rows = ["| mesh | CPU after upload s | GPU after upload s | GPU/CPU speed-up | CPU SpMV ms | GPU SpMV ms | "
            "same Newton / PCG counts |",
            "|---|---|---|---|---|---|---|"]
    for g in gpu:
        c = by_mesh.get(g["mesh"])
        if c is None:
            continue
        same = c["newton_iterations"] == g["newton_iterations"] and c["pcg_iterations"] == g["pcg_iterations"]
        rows.append(
            f"| {g['mesh']} | {fmt(c['seconds_after_upload'], 2)} | {fmt(g['seconds_after_upload'], 3)} | "
            f"{fmt(ratio(c['seconds_after_upload'], g['seconds_after_upload']), 1)}x | "
            f"{fmt(1e3 * c['spmv_seconds'], 2)} | {fmt(1e3 * g['spmv_seconds'], 3)} | "
            f"{'yes' if same else 'no: CPU %d / %d' % (c['newton_iterations'], c['pcg_iterations'])} |")
    return "\n".join(rows)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="ductile-bench --json output to report")
    ap.add_argument("--cpu", help="ductile-bench --json output of the CPU backend, same meshes")
    a = ap.parse_args(argv)
    try:
        recs = load(a.run)
        cpu = load(a.cpu) if a.cpu else None
        parts = [header(recs[0]), "", seed_table(recs), "", floor_table(recs), "", targets_table(recs)]
        if cpu:
            c0 = cpu[0]
            threads = c0.get("threads_option", 0) or c0.get("host_cpus", "all")
            parts += ["", f"CPU run: backend `{c0['backend']}`, {threads} threads of {c0.get('host_cpus', '?')} "
                      f"CPUs, {c0.get('date_utc', 'date not recorded')}.", "", cpu_table(recs, cpu)]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"bench_report: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print("\n".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
