#!/bin/bash
# Same machine, back to back: v2 (DUCTILE_ROWS_MINB=4; the session's second step) and the final
# block-row tangent, the cubes twice each (two-level + adaptive).
B=build-cuda/d93
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductile-bench
for pass in 1 2; do
  for bin in ductile-bench-v2 ductile-bench; do
    echo "=== $bin pass $pass"; DUCTILE_ROWS_MINB=4 timeout 150 $B/$bin --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/$bin.$pass.json > /dev/null 2>&1; echo "rc=$?"; summ $OUT/$bin.$pass.json
  done
done
date -u
