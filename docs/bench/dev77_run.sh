#!/bin/bash
# Matrix-free with two-level + adaptive: C1-C5 on the GPU at 420 MPa, and C3 on the 16 CPU cores.
B=build-cuda/dev77
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductile-bench | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %s %g MPa %s N%d P%d after %.3f s asm %.2f ms spmv %.3f ms peak %.2f GB' % (r['mesh'], r['backend'], r['operator'], r['load_mpa'], r['preconditioner'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], 1e3*r['spmv_seconds'], r['peak_bytes']/1e9))
" $1; }
for OP in assembled matrix_free; do
  timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --operator $OP --load 420 --json $OUT/gpu_${OP}_420.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/gpu_${OP}_420.json
done
date -u
for L in 420 800; do
  for OP in assembled matrix_free; do
    timeout 200 $B/ductile-bench --backend cpu --threads 16 --meshes C3 --precond two_level --forcing adaptive --operator $OP --load $L --json $OUT/cpu_${OP}_C3_$L.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/cpu_${OP}_C3_$L.json
  done
done
date -u
