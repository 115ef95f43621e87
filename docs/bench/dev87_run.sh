#!/bin/bash
# The block-row tangent (cuda/cuda_tangent_rows.cu) on the lent GPU: its own test, daemon on the GPU (operator
# test too), GPU tests with both kernel sets, matrix-free on cuda, validation on cuda with the CPU
# cross-check, memcheck of the new test, the cubes with block rows and with the colour kernel.
# Binaries built here (Release) and carried in build-cuda/d86 with the libraries the device lacks.
B=build-cuda/d86
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductiled
source docs/bench/gpu_checks.sh # (as run then, inline)
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/rows_two_level_adaptive.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/rows_two_level_adaptive.json
DUCTILE_CUDA_TANGENT=colour timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/colour_two_level_adaptive.json > /dev/null 2>&1; echo "bench (colour) rc=$?"; summ $OUT/colour_two_level_adaptive.json
timeout 200 $B/ductile-bench --backend cuda --meshes all --precond block_jacobi --forcing fixed --json $OUT/rows_seed.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/rows_seed.json
date -u
