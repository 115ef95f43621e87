#!/bin/bash
# The final block-row tangent on the H200: the cubes, two-level + adaptive and the seed's
# configuration, and the colour kernel in the same session.
B=build-cuda/d93
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductile-bench | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %s N%d P%d after %.3f s asm %.3f ms (floor %.3f, x%.2f) stress x%.2f spmv %.3f ms (%.0f%% of copy) peak %.2f GB' % (r['mesh'], r['preconditioner'], r['pcg_forcing'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], 1e3*r['assembly_floor_seconds'], r['assembly_per_call_seconds']/r['assembly_floor_seconds'], r['stress_per_call_seconds']/r['stress_floor_seconds'], 1e3*r['spmv_seconds'], 100*r['spmv_floor_seconds']/r['spmv_seconds'], r['peak_bytes']/1e9))
" $1; }
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/final_two_level_adaptive.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_two_level_adaptive.json
timeout 200 $B/ductile-bench --backend cuda --meshes all --precond block_jacobi --forcing fixed --json $OUT/final_seed.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_seed.json
DUCTILE_CUDA_TANGENT=colour timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/colour.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/colour.json
date -u
