#!/bin/bash
# Last check of the final CUDA code (kernel load list and launch checks): test_matrix_free, agreement, memcheck.
B=build-cuda/dev84
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/test_gpu_agreement | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free > /tmp/mf.log 2>&1; echo "rc=$?"; grep -E "Mohr|two_level M" /tmp/mf.log; tail -1 /tmp/mf.log
echo "=== test_gpu_agreement"; timeout 200 $B/test_gpu_agreement > /tmp/a.log 2>&1; echo "rc=$?"; grep -E "FAIL|hex8 mohr-coulomb matrix" /tmp/a.log | head -5 | cut -c1-250; tail -1 /tmp/a.log
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 200 $B/test_gpu_agreement > /tmp/as.log 2>&1; echo "rc=$?"; tail -1 /tmp/as.log
echo "=== memcheck: test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 100 compute-sanitizer --tool memcheck $B/test_matrix_free 2>&1 | grep -E "ERROR SUMMARY|passed" | head -2
echo "=== memcheck: agreement"; timeout 250 compute-sanitizer --tool memcheck $B/test_gpu_agreement 2>&1 | grep -E "ERROR SUMMARY|passed" | head -2
date -u
