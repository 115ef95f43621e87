#!/bin/bash
# The matrix-free operator on meshes of several element types and with the simple kernels; tests, memcheck, C5.
B=build-cuda/dev75
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductile-bench | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free > /tmp/mf.log 2>&1; echo "rc=$?"; tail -4 /tmp/mf.log
echo "=== test_matrix_free (cuda, simple kernels)"; DUCTILE_CUDA_ELEMENTS=simple DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free > /tmp/mfs.log 2>&1; echo "rc=$?"; tail -4 /tmp/mfs.log
for t in test_gpu_agreement test_gpu_memory_limit test_gpu_transfers; do
  echo "=== $t"; timeout 200 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; grep -E "tet4.*matrix-free|matrix-free, fully" /tmp/$t.log | cut -c1-200; tail -1 /tmp/$t.log | cut -c1-200
done
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 200 $B/test_gpu_agreement > /tmp/as.log 2>&1; echo "rc=$?"; grep -c "matrix-free" /tmp/as.log; tail -1 /tmp/as.log
echo "=== test_linear_options (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_linear_options > /tmp/lo.log 2>&1; echo "rc=$?"; tail -1 /tmp/lo.log
date -u
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %g MPa %s N%d P%d after %.3f s asm %.2f ms spmv %.3f ms peak %.2f GB' % (r['mesh'], r['operator'], r['load_mpa'], r['preconditioner'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], 1e3*r['spmv_seconds'], r['peak_bytes']/1e9))
" $1; }
for L in 420 800; do
  timeout 100 $B/ductile-bench --backend cuda --meshes C5 --precond two_level --forcing adaptive --operator matrix_free --load $L --json $OUT/tl_mf_C5_$L.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/tl_mf_C5_$L.json
done
echo "=== memcheck: agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 260 compute-sanitizer --tool memcheck $B/test_gpu_agreement 2>&1 | grep -E "ERROR SUMMARY|passed" | head -2
echo "=== memcheck: test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 100 compute-sanitizer --tool memcheck $B/test_matrix_free 2>&1 | grep -E "ERROR SUMMARY|passed" | head -2
date -u
