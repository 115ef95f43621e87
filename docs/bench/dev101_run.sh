#!/bin/bash
# The final block-row tangent on the H200: the cubes, two-level + adaptive and the seed's
# configuration, and the colour kernel in the same session.
B=${B:-build-cuda/d93} # the folder carried (dev103_run.sh names another)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductile-bench
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/final_two_level_adaptive.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_two_level_adaptive.json
timeout 200 $B/ductile-bench --backend cuda --meshes all --precond block_jacobi --forcing fixed --json $OUT/final_seed.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_seed.json
DUCTILE_CUDA_TANGENT=colour timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/colour.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/colour.json
date -u
