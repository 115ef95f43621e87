#!/bin/bash
# Device check of the matrix-free operator (thread per element node on the interleaved store):
# its tests on the CUDA backend, memcheck, then the cubes at several loads.
B=build-cuda/dev70
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductile-bench | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free > /tmp/mf.log 2>&1; echo "rc=$?"; tail -3 /tmp/mf.log | cut -c1-250
echo "=== test_gpu_agreement"; timeout 200 $B/test_gpu_agreement > /tmp/agr.log 2>&1; echo "rc=$?"; tail -1 /tmp/agr.log
grep -c "matrix-free" /tmp/agr.log
cp /tmp/agr.log $OUT/agreement.log
echo "=== test_gpu_memory_limit"; timeout 200 $B/test_gpu_memory_limit > /tmp/ml.log 2>&1; echo "rc=$?"; grep -E "matrix-free|fail" /tmp/ml.log | cut -c1-200
echo "=== memcheck: test_matrix_free on cuda"
DUCTILE_BACKEND=cuda timeout 200 compute-sanitizer --tool memcheck $B/test_matrix_free 2>&1 | grep -E "ERROR SUMMARY|failed|passed" | head -3
date -u
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %g MPa N%d P%d after %.3f s asm %.2f ms stress %.2f ms spmv %.3f ms (bytes %.2f GB) peak %.2f GB plastic %.3f' % (r['mesh'], r['operator'], r['load_mpa'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], 1e3*r['stress_per_call_seconds'], 1e3*r['spmv_seconds'], r['spmv_bytes']/1e9, r['peak_bytes']/1e9, r['plastic_fraction']))
" $1; }
for L in 420 800; do
  echo "=== C1-C5 matrix_free at $L MPa"
  timeout 150 $B/ductile-bench --backend cuda --meshes all --precond block_jacobi --forcing fixed --operator matrix_free --load $L --json $OUT/all_matrix_free_$L.json > /tmp/b.log 2>&1; echo "rc=$?"
  summ $OUT/all_matrix_free_$L.json
done
for L in 300 445; do
  timeout 120 $B/ductile-bench --backend cuda --meshes C5 --precond block_jacobi --forcing fixed --operator matrix_free --load $L --json $OUT/c5_matrix_free_$L.json > /tmp/b.log 2>&1; echo "C5 $L rc=$?"
  summ $OUT/c5_matrix_free_$L.json
done
date -u
echo "=== ncu, C3 elastic"
timeout 200 ncu --kernel-name regex:"k_mf_element" --launch-skip 20 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
  $B/ductile-bench --backend cuda --meshes C3 --precond block_jacobi --operator matrix_free --load 300 > /tmp/ncu.log 2>&1; echo "rc=$?"
grep -E "Duration|DRAM Throughput|TEX Hit|Mem Busy|Registers Per|Achieved Occ|Compute" /tmp/ncu.log
date -u
