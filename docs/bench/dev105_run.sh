#!/bin/bash
# The block rows with the Dirichlet rows and columns applied as they are written (no Dirichlet
# pass): its test, then the cubes against the previous kernel (c573c27), back to back.
B=${B:-build-cuda/d96}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductile-bench
echo "=== test_gpu_tangent_rows"; timeout 150 $B/test_gpu_tangent_rows > /tmp/t.log 2>&1; echo "rc=$?"; tail -5 /tmp/t.log | cut -c1-250
for pass in 1 2; do
  for bin in ductile-bench-prev ductile-bench; do
    echo "=== $bin pass $pass"; timeout 150 $B/$bin --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/$bin.$pass.json > /dev/null 2>&1; echo "rc=$?"; summ $OUT/$bin.$pass.json | cut -d' ' -f1,9-15
  done
done
date -u
