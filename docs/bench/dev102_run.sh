#!/bin/bash
# One chunk per row (nodes with more than 8 elements keep the colour kernel): no spills at 4
# blocks per SM, 72 B at 5. Its test, then the cubes with 4 and 5 blocks per SM against the
# previous kernel (commit 8e6ce67), back to back on one machine.
B=build-cuda/d94
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductile-bench
echo "=== test_gpu_tangent_rows"; timeout 150 $B/test_gpu_tangent_rows > /tmp/t.log 2>&1; echo "rc=$?"; tail -5 /tmp/t.log | cut -c1-250
for pass in 1 2; do
  for bin in ductile-bench-prev ductile-bench ductile-bench-mb5; do
    echo "=== $bin pass $pass"; timeout 150 $B/$bin --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/$bin.$pass.json > /dev/null 2>&1; echo "rc=$?"; summ $OUT/$bin.$pass.json | cut -d' ' -f1,6-13
  done
done
date -u
