#!/bin/bash
# The block-row tangent with the row sums in shared memory and no kinematic lookups without
# kinematic hardening: its test, the agreement test, the daemon on the GPU, the cubes with 96 and
# with 112 registers (ROWS_MIN_BLOCKS 5 and 4), and the colour kernel for comparison.
B=build-cuda/d86
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductiled | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %s N%d P%d after %.3f s asm %.3f ms (floor %.3f ms, x%.2f) stress x%.2f spmv %.0f%% of copy' % (r['mesh'], r['preconditioner'], r['pcg_forcing'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], 1e3*r['assembly_floor_seconds'], r['assembly_per_call_seconds']/r['assembly_floor_seconds'], r['stress_per_call_seconds']/r['stress_floor_seconds'], 100*r['spmv_floor_seconds']/r['spmv_seconds']))
" $1; }
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/rows96_two_level_adaptive.json > /dev/null 2>&1; echo "bench (96 registers) rc=$?"; summ $OUT/rows96_two_level_adaptive.json
timeout 150 $B/ductile-bench4 --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/rows112_two_level_adaptive.json > /dev/null 2>&1; echo "bench (112 registers) rc=$?"; summ $OUT/rows112_two_level_adaptive.json
for t in test_gpu_tangent_rows test_gpu_agreement; do
  echo "=== $t"; timeout 150 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -4 /tmp/$t.log | cut -c1-250
done
echo "=== daemon on the GPU"; timeout 200 python3 tests/server/test_daemon_gpu.py $B/ductiled > /tmp/daemon.log 2>&1; echo "daemon rc=$?"; tail -1 /tmp/daemon.log
date -u
