#!/bin/bash
# The final block-row tangent (commit c573c27: one chunk per row) through dev101_run.sh's
# benchmarks, from the binaries carried in build-cuda/d94.
B=build-cuda/d94 exec bash docs/bench/dev101_run.sh
