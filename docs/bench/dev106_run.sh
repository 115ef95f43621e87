#!/bin/bash
# After the review (2026-11-26): every GPU check (gpu_checks.sh, with test_matrix_free on cuda)
# of the final code, from the binaries carried in build-cuda/d97 (the benchmarks: dev107_run.sh).
B=${B:-build-cuda/d97}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
source docs/bench/device_env.sh $B/ductiled
source docs/bench/gpu_checks.sh
