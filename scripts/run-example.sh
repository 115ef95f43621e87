#!/usr/bin/env bash
# Set up, build ductile-solve and run the shipped unit-cube example (Kiran's validation case).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target ductile-solve
./build/release/solver/ductile-solve examples/unit_cube.json -o out/unit_cube "$@"
echo "results: out/unit_cube (summary.json, history.csv, increment_*.vtu, results.pvd for ParaView)"
