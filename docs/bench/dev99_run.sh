#!/bin/bash
# The block-row tangent, final code of 2026-11-26 (A fragments from registers, strided warps
# with the next row's indices loaded ahead, adjacent points per lane) on the lent GPU: every GPU
# check (gpu_checks.sh), then the cubes, two-level + adaptive and the seed's configuration, and
# the colour kernel in the same session. Binaries built here (Release), carried in
# build-cuda/d92 with the libraries the device lacks.
B=${B:-build-cuda/d92} # the folder carried (dev104_run.sh names another)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductiled
source docs/bench/gpu_checks.sh
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/final_two_level_adaptive.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_two_level_adaptive.json
timeout 200 $B/ductile-bench --backend cuda --meshes all --precond block_jacobi --forcing fixed --json $OUT/final_seed.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_seed.json
date -u
echo "=== the colour kernel, same session"
DUCTILE_CUDA_TANGENT=colour timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/colour_two_level_adaptive.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/colour_two_level_adaptive.json
date -u
