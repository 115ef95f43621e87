#!/bin/bash
# The final block-row tangent (commit c573c27: one chunk per row) through dev99_run.sh's checks
# and benchmarks, from the binaries carried in build-cuda/d95.
B=build-cuda/d95 exec bash docs/bench/dev99_run.sh
