#!/bin/bash
# The matrix-free operator on meshes of several element types (incidences uploaded for it): agreement, memcheck.
B=build-cuda/dev76
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductile-bench | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== test_gpu_agreement"; timeout 200 $B/test_gpu_agreement > /tmp/a.log 2>&1; echo "rc=$?"; grep -E "FAIL|tet4" /tmp/a.log | cut -c1-250 | head; tail -1 /tmp/a.log
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 200 $B/test_gpu_agreement > /tmp/as.log 2>&1; echo "rc=$?"; grep -E "FAIL" /tmp/as.log | cut -c1-250 | head; grep -c "matrix-free" /tmp/as.log; tail -1 /tmp/as.log
echo "=== memcheck: agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 280 compute-sanitizer --tool memcheck --print-limit 5 $B/test_gpu_agreement > /tmp/ms.log 2>&1; grep -E "ERROR SUMMARY|passed|Invalid|at 0x|by thread" /tmp/ms.log | head -12
echo "=== memcheck: agreement"; timeout 250 compute-sanitizer --tool memcheck --print-limit 5 $B/test_gpu_agreement > /tmp/m.log 2>&1; grep -E "ERROR SUMMARY|passed|Invalid" /tmp/m.log | head -6
date -u
