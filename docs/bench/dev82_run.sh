#!/bin/bash
# The slotted elements' product (k_mf_slotted: a warp per row pair, each stored value read once): tests, memcheck, cubes.
B=build-cuda/dev82
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductile-bench | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free > /tmp/mf.log 2>&1; echo "rc=$?"; tail -4 /tmp/mf.log
echo "=== test_gpu_agreement"; timeout 200 $B/test_gpu_agreement > /tmp/a.log 2>&1; echo "rc=$?"; grep -E "FAIL" /tmp/a.log | head -5 | cut -c1-250; tail -1 /tmp/a.log
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 200 $B/test_gpu_agreement > /tmp/as.log 2>&1; echo "rc=$?"; tail -1 /tmp/as.log
echo "=== test_gpu_memory_limit"; timeout 120 $B/test_gpu_memory_limit > /tmp/ml.log 2>&1; echo "rc=$?"; tail -1 /tmp/ml.log | cut -c1-200
date -u
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %g MPa (%.3f plastic) %s %s N%d P%d after %.3f s asm %.2f ms spmv %.3f ms peak %.2f GB' % (r['mesh'], r['operator'], r['load_mpa'], r['plastic_fraction'], r['preconditioner'], r['pcg_forcing'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], 1e3*r['spmv_seconds'], r['peak_bytes']/1e9))
" $1; }
for L in 420 445 800; do
  timeout 100 $B/ductile-bench --backend cuda --meshes C5 --operator matrix_free --load $L --json $OUT/mf_seed_C5_$L.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/mf_seed_C5_$L.json
done
for L in 420 800; do
  timeout 100 $B/ductile-bench --backend cuda --meshes C5 --operator matrix_free --precond two_level --forcing adaptive --load $L --json $OUT/mf_tl_C5_$L.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/mf_tl_C5_$L.json
done
timeout 100 $B/ductile-bench --backend cuda --meshes C1C3 --operator matrix_free --load 800 --json $OUT/mf_seed_C1C3_800.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/mf_seed_C1C3_800.json
echo "=== memcheck: agreement"; timeout 200 compute-sanitizer --tool memcheck $B/test_gpu_agreement 2>&1 | grep -E "ERROR SUMMARY|passed" | head -2
date -u
