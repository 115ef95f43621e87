#!/usr/bin/env bash
# Set up, check the formatting, build and run every test that runs without a GPU (this is what
# CI runs).
#  1. a Release build with warnings as errors (CUDA included when nvcc is present), full ctest;
#  2. an AddressSanitizer/UBSan build running every test not labelled slow or pg (invalid input,
#     parser, unit, small validation cases).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
bash scripts/check-format.sh
JOBS=$(nproc)
cmake -S . -B build/ci -DCMAKE_BUILD_TYPE=Release -DDUCTILE_WERROR=ON
cmake --build build/ci -j "$JOBS"
ctest --test-dir build/ci --output-on-failure -j "$JOBS" -LE gpu
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DDUCTILE_SANITIZE=ON -DDUCTILE_CUDA=OFF -DDUCTILE_WERROR=ON
cmake --build build/asan -j "$JOBS"
# The server tests against PostgreSQL (label pg) ran in the Release build above; under ASan they
# would repeat the same daemon code paths, at the cost of another PostgreSQL fixture.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --output-on-failure -j "$JOBS" -LE "gpu|slow|pg"
