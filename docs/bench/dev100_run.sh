#!/bin/bash
# Same machine, back to back: v2 (DUCTILE_ROWS_MINB=4; the session's second step) and the final
# block-row tangent, the cubes twice each (two-level + adaptive).
B=build-cuda/d93
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductile-bench | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s asm %.3f ms (floor %.3f, x%.2f) stress x%.2f' % (r['mesh'], 1e3*r['assembly_per_call_seconds'], 1e3*r['assembly_floor_seconds'], r['assembly_per_call_seconds']/r['assembly_floor_seconds'], r['stress_per_call_seconds']/r['stress_floor_seconds']))
" $1; }
for pass in 1 2; do
  for bin in ductile-bench-v2 ductile-bench; do
    echo "=== $bin pass $pass"; DUCTILE_ROWS_MINB=4 timeout 150 $B/$bin --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/$bin.$pass.json > /dev/null 2>&1; echo "rc=$?"; summ $OUT/$bin.$pass.json
  done
done
date -u
