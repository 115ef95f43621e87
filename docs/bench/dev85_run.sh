#!/bin/bash
# Final device check after the review mend: daemon on the GPU (operator test too), GPU tests with both
# kernel sets, validation on cuda with the CPU cross-check, memcheck of the agreement test, the cubes.
B=build-cuda/dev85
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductiled | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
echo "=== daemon on the GPU"; timeout 200 python3 tests/server/test_daemon_gpu.py $B/ductiled > /tmp/daemon.log 2>&1; echo "daemon rc=$?"; tail -2 /tmp/daemon.log
echo "=== operator test on the GPU daemon"; timeout 200 python3 tests/server/test_operator.py $B/ductiled > /tmp/op.log 2>&1; echo "rc=$?"; tail -4 /tmp/op.log | cut -c1-200
for t in test_gpu_memory_limit test_gpu_agreement test_gpu_transfers; do
  echo "=== $t"; timeout 150 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -1 /tmp/$t.log | cut -c1-250
done
grep -c "matrix-free" /tmp/test_gpu_agreement.log
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 150 $B/test_gpu_agreement > /tmp/as.log 2>&1; echo "rc=$?"; tail -1 /tmp/as.log
for t in test_matrix_free test_checkpoint test_linear_options; do
  echo "=== $t (cuda)"; DUCTILE_BACKEND=cuda timeout 120 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -1 /tmp/$t.log | cut -c1-200
done
echo "=== test_matrix_free (cuda, simple)"; DUCTILE_CUDA_ELEMENTS=simple DUCTILE_BACKEND=cuda timeout 120 $B/test_matrix_free > /tmp/mfs.log 2>&1; echo "rc=$?"; tail -1 /tmp/mfs.log
date -u
export DUCTILE_CROSS_CHECK_CPU=1
for s in tests/validation/val_*.py; do
  n=$(basename $s .py)
  case $n in val_footing|val_cantilever|val_patch) continue;; esac
  timeout 120 python3 $s --solver $B/ductile-solve --backend cuda > /tmp/v.log 2>&1; echo "$n rc=$? $(grep -c 'cross-check' /tmp/v.log) cross-checks $(grep -o 'FAILED.*' /tmp/v.log | cut -c1-150)"
done
unset DUCTILE_CROSS_CHECK_CPU
date -u
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %g MPa %s %s N%d P%d after %.3f s asm %.2f ms (floor x%.2f) stress x%.2f spmv %.3f ms peak %.2f GB' % (r['mesh'], r['operator'], r['load_mpa'], r['preconditioner'], r['pcg_forcing'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], r['assembly_per_call_seconds']/r['assembly_floor_seconds'], r['stress_per_call_seconds']/r['stress_floor_seconds'], 1e3*r['spmv_seconds'], r['peak_bytes']/1e9))
" $1; }
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/final_two_level_adaptive.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_two_level_adaptive.json
timeout 100 $B/ductile-bench --backend cuda --meshes C5 --precond block_jacobi --forcing fixed --json $OUT/final_seed_C5.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_seed_C5.json
timeout 100 $B/ductile-bench --backend cuda --meshes C5 --operator matrix_free --load 420 --json $OUT/final_mf_C5_420.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_mf_C5_420.json
for L in 800; do
  timeout 100 $B/ductile-bench --backend cuda --meshes C5 --operator matrix_free --load $L --json $OUT/final_mf_C5_$L.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_mf_C5_$L.json
done
timeout 100 $B/ductile-bench --backend cuda --meshes C5 --operator matrix_free --precond two_level --forcing adaptive --load 420 --json $OUT/final_mf_tl_C5_420.json > /dev/null 2>&1; echo "bench rc=$?"; summ $OUT/final_mf_tl_C5_420.json
echo "=== memcheck: agreement"; timeout 230 compute-sanitizer --tool memcheck $B/test_gpu_agreement 2>&1 | grep -E "ERROR SUMMARY|passed" | head -2
date -u
