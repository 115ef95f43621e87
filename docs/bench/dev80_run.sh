#!/bin/bash
# After the CPU matrix-free product change: CPU against CUDA again (agreement, both kernel sets), test_matrix_free on cuda.
B=build-cuda/dev80
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/test_gpu_agreement | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== test_gpu_agreement"; timeout 200 $B/test_gpu_agreement > /tmp/a.log 2>&1; echo "rc=$?"; grep -c "matrix-free" /tmp/a.log; tail -1 /tmp/a.log
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 200 $B/test_gpu_agreement > /tmp/as.log 2>&1; echo "rc=$?"; tail -1 /tmp/as.log
echo "=== test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free > /tmp/mf.log 2>&1; echo "rc=$?"; tail -1 /tmp/mf.log
echo "=== test_gpu_memory_limit"; timeout 120 $B/test_gpu_memory_limit > /tmp/ml.log 2>&1; echo "rc=$?"; tail -1 /tmp/ml.log | cut -c1-200
date -u
