# Sourced by the device scripts after device_env.sh, with B the carried folder: every GPU check
# of the CUDA backend (the daemon and operator tests against a daemon on the GPU, the gpu-label
# tests, the agreement test with the simple kernels, the matrix-free test on cuda, memcheck of
# the block-row test, the validation scripts on cuda with the CPU cross-check), a few lines each;
# a test binary the folder lacks is skipped.
echo "=== daemon on the GPU"; timeout 200 python3 tests/server/test_daemon_gpu.py $B/ductiled > /tmp/daemon.log 2>&1; echo "daemon rc=$?"; tail -2 /tmp/daemon.log
echo "=== operator test on the GPU daemon"; timeout 200 python3 tests/server/test_operator.py $B/ductiled > /tmp/op.log 2>&1; echo "rc=$?"; tail -4 /tmp/op.log | cut -c1-200
for t in test_gpu_tangent_rows test_gpu_memory_limit test_gpu_agreement test_gpu_transfers test_matrix_free; do
  [ -x $B/$t ] || continue
  echo "=== $t"; DUCTILE_BACKEND=cuda timeout 150 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -4 /tmp/$t.log | cut -c1-250
done
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 150 $B/test_gpu_agreement > /tmp/as.log 2>&1; echo "rc=$?"; tail -1 /tmp/as.log
if [ -x $B/test_gpu_tangent_rows ]; then
  echo "=== memcheck: block-row test"; timeout 200 compute-sanitizer --tool memcheck $B/test_gpu_tangent_rows 2>&1 | grep -E "ERROR SUMMARY|passed" | head -2
fi
date -u
export DUCTILE_CROSS_CHECK_CPU=1
for s in tests/validation/val_*.py; do
  n=$(basename $s .py)
  case $n in val_footing|val_cantilever|val_patch) continue;; esac
  timeout 120 python3 $s --solver $B/ductile-solve --backend cuda > /tmp/v.log 2>&1; echo "$n rc=$? $(grep -c 'cross-check' /tmp/v.log) cross-checks $(grep -o 'FAILED.*' /tmp/v.log | cut -c1-150)"
done
unset DUCTILE_CROSS_CHECK_CPU
date -u
