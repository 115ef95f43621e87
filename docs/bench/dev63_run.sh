#!/bin/bash
# Device check of the matrix-free operator: its tests on the CUDA backend, regression checks of
# the assembled path, memcheck, then the cube at four loads with both operators.
B=build-cuda/dev63
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductile-bench | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free > /tmp/mf.log 2>&1; echo "rc=$?"; tail -4 /tmp/mf.log | cut -c1-250
for t in test_gpu_agreement test_gpu_transfers; do
  echo "=== $t"; timeout 200 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -2 /tmp/$t.log | cut -c1-250
done
cp /tmp/test_gpu_agreement.log $OUT/agreement.log
grep -E "matrix-free|FAIL|fail" /tmp/test_gpu_agreement.log | head -20
echo "=== test_linear_options (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_linear_options 2>&1 | tail -1; echo "rc=${PIPESTATUS[0]}"
date -u
echo "=== memcheck: test_matrix_free on cuda"
DUCTILE_BACKEND=cuda timeout 200 compute-sanitizer --tool memcheck $B/test_matrix_free 2>&1 | grep -E "ERROR SUMMARY|failed|passed" | head -3
date -u
echo "=== cube C5, seed configuration, four loads, both operators"
for L in 300 445; do
  for op in assembled matrix_free; do
    timeout 120 $B/ductile-bench --backend cuda --meshes C5 --precond block_jacobi --forcing fixed --operator $op --load $L --json /tmp/c5_${op}_$L.json > /tmp/b.log 2>&1; echo "C5 $op $L rc=$?"
    grep -E "Newton|after upload|assembly per|stress\+f_int per|SpMV|peak" /tmp/b.log | sed 's/  copy.*//' | cut -c1-200
  done
done
date -u
for L in 420 800; do
  for op in assembled matrix_free; do
    echo "=== C1-C5 $op at $L MPa"
    timeout 150 $B/ductile-bench --backend cuda --meshes all --precond block_jacobi --forcing fixed --operator $op --load $L --json $OUT/all_${op}_$L.json > /tmp/b.log 2>&1; echo "rc=$?"
    python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s N%d P%d after %.3f s asm %.2f ms stress %.2f ms spmv %.3f ms (bytes %.2f GB) peak %.2f GB plastic %.3f' % (r['mesh'], r['operator'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], 1e3*r['stress_per_call_seconds'], 1e3*r['spmv_seconds'], r['spmv_bytes']/1e9, r['peak_bytes']/1e9, r['plastic_fraction']))
" $OUT/all_${op}_$L.json
  done
done
ls $OUT
date -u
echo "=== CPU, 16 threads, C3 at 420 MPa"
for op in assembled matrix_free; do
  timeout 150 $B/ductile-bench --backend cpu --threads 16 --meshes C3 --precond block_jacobi --forcing fixed --operator $op --load 420 --json /tmp/cpu_c3_${op}_420.json > /tmp/b.log 2>&1; echo "cpu C3 $op rc=$?"
  grep -E "Newton|after upload|SpMV|peak" /tmp/b.log | sed 's/  copy.*//' | cut -c1-200
done
date -u
