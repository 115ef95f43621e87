#!/usr/bin/env bash
# bench/run.sh SUITE [options]: build Release, run one benchmark suite, write its result JSON to
# bench/results/<device>-<suite>-<UTC date-time>.json (bench/README.md: suites, options, schema).
#
#   bench/run.sh cubes|real|mohr_coulomb|daemon [--backend cpu|cuda|both] [--sizes small,medium,large|all]
#                [--models a,b] [--out FILE] [--no-build] [--build DIR] [--ccx [--ccx-solver S]] [--limit S] [--threads N]
#
# Then `python3 bench/lib/bench_report.py docs` regenerates docs/benchmarks.md's current results
# from bench/results/*.json.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-64}"; }
[ $# -ge 1 ] || usage
suite=$1; shift
case $suite in
  cubes|real|mohr_coulomb|daemon) ;;
  -h|--help) usage 0 ;;
  *) echo "run.sh: unknown suite '$suite'" >&2; usage ;;
esac

backend=cpu sizes= models= out= build=1 builddir="$root/build/bench" ccx=0 ccx_solver= limit= threads=
while [ $# -gt 0 ]; do
  case $1 in
    --backend) backend=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --models) models=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --build) builddir=$2; shift 2 ;;
    --ccx) ccx=1; shift ;;
    --ccx-solver) ccx_solver=$2; shift 2 ;;
    --limit) limit=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "run.sh: unknown option '$1'" >&2; usage ;;
  esac
done
case $backend in cpu|cuda|both) ;; *) echo "run.sh: --backend cpu, cuda or both" >&2; exit 64 ;; esac

if [ "$build" = 1 ]; then
  # The CUDA backend: AUTO (built when nvcc is found) for a cpu run, ON (nvcc required) otherwise.
  cfg=(-DCMAKE_BUILD_TYPE=Release)
  if [ "$backend" = cpu ]; then cfg+=(-DDUCTILE_CUDA=AUTO); else cfg+=(-DDUCTILE_CUDA=ON); fi
  targets=(ductile-solve ductile-bench)
  [ "$suite" = daemon ] && targets=(ductiled)
  mkdir -p "$builddir"
  cmake -S "$root" -B "$builddir" "${cfg[@]}" > "$builddir/bench-cmake.log" 2>&1 ||
    { cat "$builddir/bench-cmake.log"; exit 1; }
  cmake --build "$builddir" -j "$(nproc)" --target "${targets[@]}" > "$builddir/bench-build.log" 2>&1 ||
    { tail -40 "$builddir/bench-build.log"; exit 1; }
fi
need=$builddir/solver/ductile-solve
[ "$suite" = daemon ] && need=$builddir/server/ductiled
[ -x "$need" ] || { echo "run.sh: $need is missing (build first, or --build DIR)" >&2; exit 1; }

args=(--build "$builddir" --backend "$backend")
[ -n "$sizes" ] && args+=(--sizes "$sizes")
[ -n "$models" ] && args+=(--models "$models")
[ -n "$out" ] && args+=(--out "$out")
[ -n "$limit" ] && args+=(--limit "$limit")
[ -n "$threads" ] && args+=(--threads "$threads")
if [ "$suite" = real ]; then
  real=(--solver "$builddir/solver/ductile-solve" --backend "$backend")
  [ -n "$sizes" ] && real+=(--sizes "$sizes")
  [ -n "$models" ] && real+=(--models "$models")
  [ -n "$out" ] && real+=(--out "$out")
  [ -n "$limit" ] && real+=(--limit "$limit")
  [ -n "$threads" ] && real+=(--threads "$threads")
  [ "$ccx" = 1 ] && real+=(--ccx)
  [ -n "$ccx_solver" ] && real+=(--ccx-solver "$ccx_solver")
  exec python3 "$here/lib/suite_real.py" "${real[@]}"
fi
exec python3 "$here/lib/suites.py" "$suite" "${args[@]}"
