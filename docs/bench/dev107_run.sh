#!/bin/bash
# After the review (2026-11-26): the probe's kernels checked against its host assembly on C1
# (variants 0-6, 12, 13), then the cubes with the final code (build-cuda/d98), two-level +
# adaptive and the seed's configuration, and the colour kernel in the same session.
B=${B:-build-cuda/d98}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductile-bench
nvcc -O3 -arch=sm_90 -o /tmp/probe docs/bench/probe_tangent_gather.cu && { /tmp/probe 0 0 0 6; /tmp/probe 0 0 12 13; } 2>&1 | grep -E "^C1"
for cfg in "two_level adaptive" "block_jacobi fixed"; do
  set -- $cfg
  timeout 200 $B/ductile-bench --backend cuda --meshes all --precond $1 --forcing $2 --json $OUT/final_$1_$2.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_$1_$2.json
done
DUCTILE_CUDA_TANGENT=colour timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/colour.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/colour.json
date -u
