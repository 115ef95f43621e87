#!/usr/bin/env python3
"""ductile-solve --gpus LIST: a run split over several devices, and the lists it refuses.

With --backend cpu the parts run one after the other on the host, so the split driver runs
here without GPUs. The elastic hex8 cantilever (40 elements, 99 nodes) in 3 METIS parts: the
setup line says so, and the displacements and reactions of the last increment agree with the
plain run on the whole mesh within 1e-6 relative (the runs differ only by rounding inside the
PCG tolerance: block Jacobi is the plain run's preconditioner too). Malformed lists, negative
ordinals, more than 16 devices, an ordinal twice and --gpus with --device are usage errors
(exit 64) that say what is wrong. Without METIS (--no-metis) the split run is refused with a
message that names libmetis-dev.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "validation"))
from vlib import read_vtu  # noqa: E402  (the tests' one VTU reader: binary appended)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(solver, args, cwd):
    p = subprocess.run([solver] + args, cwd=cwd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def last_fields(outdir):
    vtus = sorted(glob.glob(os.path.join(outdir, "increment_*.vtu")))
    return read_vtu(vtus[-1])["point"] if vtus else None


def rel_diff(a, b):
    """Largest difference of two lists of vectors, relative to the largest entry of b."""
    scale = max(abs(x) for t in b for x in t)
    return max(abs(x - y) for s, t in zip(a, b) for x, y in zip(s, t)) / scale


def check_usage_errors(a, tmp):
    job = os.path.join(a.examples, "cantilever_hex8.json")
    cases = [
        (["--gpus", "0,,1"], "--gpus: expected comma-separated device ordinals like 0,1,2,3 (got '0,,1')"),
        (["--gpus", "0,"], "--gpus: expected comma-separated device ordinals"),
        (["--gpus", "a,b"], "--gpus: expected comma-separated device ordinals"),
        (["--gpus", "1 2"], "--gpus: expected comma-separated device ordinals"),
        (["--gpus", "0,-1"], "--gpus: device ordinals are 0 or more, not '-1'"),
        (["--gpus", ",".join(str(i) for i in range(17))], "--gpus: a run takes at most 16 devices"),
        (["--gpus", "0,1,0"], "--gpus: device 0 is listed twice"),
        (["--gpus", "0,1", "--device", "1"], "--gpus and --device both name the devices"),
    ]
    for extra, want in cases:
        rc, out, err = run(a.solver, [job, "-o", "res_bad", "--backend", "cpu"] + extra, tmp)
        check(rc == 64 and want in err, f"{extra}: exit {rc}, want 64 and {want!r} in {err!r}")
    check(not os.path.exists(os.path.join(tmp, "res_bad")), "a refused command wrote results")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--solver", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--no-metis", action="store_true", help="the build lacks METIS")
    a = ap.parse_args()
    job = os.path.join(a.examples, "cantilever_hex8.json")
    with tempfile.TemporaryDirectory() as tmp:
        check_usage_errors(a, tmp)
        rc, out, err = run(a.solver, [job, "-o", "split", "--backend", "cpu", "--gpus", "0,1,2"], tmp)
        if a.no_metis:
            check(rc == 3 and "libmetis-dev" in err, f"split without METIS: exit {rc}, {err!r}")
        else:
            check(rc == 0, f"split run: exit {rc}, stderr {err!r}")
            check("split run: 3 METIS parts" in out, "no split line in:\n" + out)
            rc, plain_out, err = run(a.solver, [job, "-o", "plain", "--backend", "cpu"], tmp)
            check(rc == 0 and "split run" not in plain_out, f"plain run: exit {rc}, {err!r}")
            # One entry is --device N: the whole mesh on that device, not a split.
            rc, one, err = run(a.solver, [job, "-o", "one", "--backend", "cpu", "--gpus", "0"], tmp)
            check(rc == 0 and "split run" not in one, f"--gpus 0: exit {rc}, {err!r}\n{one}")
            split, plain = last_fields(os.path.join(tmp, "split")), last_fields(os.path.join(tmp, "plain"))
            check(split is not None and plain is not None, "no increment_*.vtu written")
            if split and plain:
                for name in ("U", "RF"):
                    d = rel_diff(split[name], plain[name])
                    check(d <= 1e-6, f"{name}: split and plain runs differ by {d:.3g} relative")
                    print(f"{name}: 3 parts vs whole mesh, {d:.3g} relative")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
