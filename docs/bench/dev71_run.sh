#!/bin/bash
# Final device check: the GPU tests (the matrix-free operator's included) and every validation
# script on the CUDA backend (with the CPU cross-check), memcheck, the cube benchmark.
B=build-cuda/dev71
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductiled | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== daemon on the GPU"
timeout 300 python3 tests/server/test_daemon_gpu.py $B/ductiled > /tmp/daemon.log 2>&1; echo "daemon rc=$?"; tail -2 /tmp/daemon.log
for t in test_gpu_memory_limit test_gpu_agreement test_gpu_transfers; do
  echo "=== $t"; timeout 150 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -2 /tmp/$t.log | cut -c1-250
done
cp /tmp/test_gpu_agreement.log $OUT/agreement.log
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 150 $B/test_gpu_agreement > /tmp/agr_simple.log 2>&1; echo "rc=$?"; tail -1 /tmp/agr_simple.log
echo "=== test_matrix_free (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free 2>&1 | tail -3; echo "rc=${PIPESTATUS[0]}"
grep -c "matrix-free" /tmp/test_gpu_agreement.log
echo "=== test_checkpoint (cuda)"; DUCTILE_BACKEND=cuda timeout 60 $B/test_checkpoint 2>&1 | tail -1; echo "rc=${PIPESTATUS[0]}"
echo "=== test_linear_options (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/test_linear_options 2>&1 | tail -1; echo "rc=${PIPESTATUS[0]}"
export DUCTILE_CROSS_CHECK_CPU=1
: > /tmp/validation.log
for s in tests/validation/val_*.py; do
  n=$(basename $s .py)
  case $n in val_footing|val_cantilever) continue;; esac
  if [ $n = val_patch ]; then
    for e in hex8_full hex8_bbar tet4 tet10 quad4_pe quad4_ps tri3 quad8_pe quad9_pe quad16_pe quad16_ps; do
      timeout 60 python3 $s --elem $e --solver $B/ductile-solve --backend cuda > /tmp/v.log 2>&1; echo "$n $e rc=$? $(grep -c 'cross-check' /tmp/v.log) cross-checks"; cat /tmp/v.log >> /tmp/validation.log; done
  else
    timeout 200 python3 $s --solver $B/ductile-solve --backend cuda > /tmp/v.log 2>&1; echo "$n rc=$? $(grep -c 'cross-check' /tmp/v.log) cross-checks $(grep -o 'FAILED.*' /tmp/v.log | cut -c1-150)"; cat /tmp/v.log >> /tmp/validation.log
  fi
done
unset DUCTILE_CROSS_CHECK_CPU
grep -E "^(PASS|FAIL) quad_orders" /tmp/validation.log | cut -c1-900
cp /tmp/validation.log $OUT/validation.log
date -u
echo "=== memcheck: agreement (the matrix-free cases included)"
timeout 300 compute-sanitizer --tool memcheck $B/test_gpu_agreement 2>&1 | grep -E "ERROR SUMMARY|FAIL|passed" | head -3
date -u
echo "=== cube benchmark, regression check"
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/bench_two_level_adaptive.json > /tmp/bench.log 2>&1; echo "bench rc=$?"
grep -E "Newton|after upload|assembly per|stress\+f_int per" /tmp/bench.log | sed 's/  copy.*//' | cut -c1-160
date -u
echo "=== cube, seed configuration"
timeout 100 $B/ductile-bench --backend cuda --meshes C5 --precond block_jacobi --forcing fixed --json $OUT/bench_block_jacobi_fixed_C5.json > /tmp/bench2.log 2>&1; echo "bench rc=$?"
grep -E "Newton|after upload|assembly per|stress\+f_int per|SpMV|peak" /tmp/bench2.log | sed 's/  copy.*//' | cut -c1-160
echo "=== cube C5, matrix-free at 420 MPa"
timeout 100 $B/ductile-bench --backend cuda --meshes C5 --precond block_jacobi --forcing fixed --operator matrix_free --load 420 > /tmp/bench3.log 2>&1; echo "bench rc=$?"
grep -E "Newton|after upload|SpMV|peak" /tmp/bench3.log | sed 's/  copy.*//' | cut -c1-160
date -u
