#!/bin/bash
# The block-row tangent with the row sums in shared memory and no kinematic lookups without
# kinematic hardening: its test, the agreement test, the daemon on the GPU, the cubes with 96 and
# with 112 registers (ROWS_MIN_BLOCKS 5 and 4), and the colour kernel for comparison.
B=build-cuda/d86
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductiled
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/rows96_two_level_adaptive.json > /dev/null 2>&1; echo "bench (96 registers) rc=$?"; summ $OUT/rows96_two_level_adaptive.json
timeout 150 $B/ductile-bench4 --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/rows112_two_level_adaptive.json > /dev/null 2>&1; echo "bench (112 registers) rc=$?"; summ $OUT/rows112_two_level_adaptive.json
for t in test_gpu_tangent_rows test_gpu_agreement; do
  echo "=== $t"; timeout 150 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -4 /tmp/$t.log | cut -c1-250
done
echo "=== daemon on the GPU"; timeout 200 python3 tests/server/test_daemon_gpu.py $B/ductiled > /tmp/daemon.log 2>&1; echo "daemon rc=$?"; tail -1 /tmp/daemon.log
date -u
