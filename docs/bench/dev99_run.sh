#!/bin/bash
# The block-row tangent, final code of 2026-11-26 (A fragments from registers, strided warps with
# the next row's indices loaded ahead, adjacent points per lane) on the lent GPU: its own test, daemon on the GPU (operator
# test too), GPU tests with both kernel sets, validation on cuda with the CPU
# cross-check, memcheck of the new test, the cubes.
# Binaries built here (Release) and carried in build-cuda/d92 with the libraries the device lacks.
B=build-cuda/d92
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductiled | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== daemon on the GPU"; timeout 200 python3 tests/server/test_daemon_gpu.py $B/ductiled > /tmp/daemon.log 2>&1; echo "daemon rc=$?"; tail -2 /tmp/daemon.log
echo "=== operator test on the GPU daemon"; timeout 200 python3 tests/server/test_operator.py $B/ductiled > /tmp/op.log 2>&1; echo "rc=$?"; tail -4 /tmp/op.log | cut -c1-200
for t in test_gpu_tangent_rows test_gpu_memory_limit test_gpu_agreement test_gpu_transfers; do
  echo "=== $t"; timeout 150 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -4 /tmp/$t.log | cut -c1-250
done
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 150 $B/test_gpu_agreement > /tmp/as.log 2>&1; echo "rc=$?"; tail -1 /tmp/as.log
echo "=== memcheck: block-row test"; timeout 200 compute-sanitizer --tool memcheck $B/test_gpu_tangent_rows 2>&1 | grep -E "ERROR SUMMARY|passed" | head -2
date -u
export DUCTILE_CROSS_CHECK_CPU=1
for s in tests/validation/val_*.py; do
  n=$(basename $s .py)
  case $n in val_footing|val_cantilever|val_patch) continue;; esac
  timeout 120 python3 $s --solver $B/ductile-solve --backend cuda > /tmp/v.log 2>&1; echo "$n rc=$? $(grep -c 'cross-check' /tmp/v.log) cross-checks $(grep -o 'FAILED.*' /tmp/v.log | cut -c1-150)"
done
unset DUCTILE_CROSS_CHECK_CPU
date -u
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %g MPa %s %s N%d P%d after %.3f s asm %.2f ms (floor x%.2f) stress x%.2f spmv %.3f ms (%.0f%% of copy) peak %.2f GB' % (r['mesh'], r['operator'], r['load_mpa'], r['preconditioner'], r['pcg_forcing'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], r['assembly_per_call_seconds']/r['assembly_floor_seconds'], r['stress_per_call_seconds']/r['stress_floor_seconds'], 1e3*r['spmv_seconds'], 100*r['spmv_floor_seconds']/r['spmv_seconds'], r['peak_bytes']/1e9))
" $1; }
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/final_two_level_adaptive.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_two_level_adaptive.json
timeout 200 $B/ductile-bench --backend cuda --meshes all --precond block_jacobi --forcing fixed --json $OUT/final_seed.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_seed.json
date -u
echo "=== the colour kernel, same session"
DUCTILE_CUDA_TANGENT=colour timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/colour_two_level_adaptive.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/colour_two_level_adaptive.json
date -u
