#!/bin/bash
# Device check 1: the GPU tests and every validation script on the CUDA backend (with the CPU
# cross-check), then the cube benchmark as a regression check of the hex8 kernels.
B=build-cuda/dev61
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/ductiled | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
echo "=== daemon on the GPU"
LD_LIBRARY_PATH=/tmp/dlib timeout 300 python3 tests/server/test_daemon_gpu.py $B/ductiled > /tmp/daemon.log 2>&1; echo "daemon rc=$?"; tail -2 /tmp/daemon.log
for t in test_gpu_memory_limit test_gpu_agreement test_gpu_transfers; do
  echo "=== $t"; timeout 150 $B/$t > /tmp/$t.log 2>&1; echo "rc=$?"; tail -2 /tmp/$t.log | cut -c1-250
done
cp /tmp/test_gpu_agreement.log $OUT/agreement.log
grep -E "^quad(8|9|16)" /tmp/test_gpu_agreement.log
echo "=== agreement, simple kernels"; DUCTILE_CUDA_ELEMENTS=simple timeout 150 $B/test_gpu_agreement > /tmp/agr_simple.log 2>&1; echo "rc=$?"; tail -1 /tmp/agr_simple.log
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
echo "=== memcheck: agreement (the quad kernels included)"
timeout 240 compute-sanitizer --tool memcheck $B/test_gpu_agreement 2>&1 | grep -E "ERROR SUMMARY|FAIL|passed" | head -3
date -u
echo "=== cube benchmark, regression check"
timeout 150 $B/ductile-bench --backend cuda --meshes all --precond two_level --forcing adaptive --json $OUT/bench_two_level_adaptive.json > /tmp/bench.log 2>&1; echo "bench rc=$?"
grep -E "Newton|after upload|assembly per|stress\+f_int per" /tmp/bench.log | sed 's/  copy.*//' | cut -c1-160
date -u
echo "=== cube, seed configuration"
timeout 100 $B/ductile-bench --backend cuda --meshes C5 --precond block_jacobi --forcing fixed --json $OUT/bench_block_jacobi_fixed_C5.json > /tmp/bench2.log 2>&1; echo "bench rc=$?"
grep -E "Newton|after upload|assembly per|stress\+f_int per|SpMV|peak" /tmp/bench2.log | sed 's/  copy.*//' | cut -c1-160
echo "=== seed-000 levels (l = 4)"
for c in 4-1 4-2 4-3; do
  l=${c%-*}; p=${c#*-}
  python3 docs/bench/seed000_level_job.py $l $p > /tmp/j$c.json
  timeout 100 $B/ductile-solve /tmp/j$c.json -o /tmp/o$c --backend cuda > /tmp/l$c.log 2>&1 || echo "$c rc=$?"
  python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); t=d['timings']
print('%s cuda newton %d pcg %d residual %.4f ms (%d) jacobian %.4f ms (%d) total %.2f' % (sys.argv[2], d['newton_iterations'], d['pcg_iterations'], 1e3*t['stress']/t['stress_calls'], t['stress_calls'], 1e3*t['assembly']/t['assembly_calls'], t['assembly_calls'], t['total']))" /tmp/o$c/summary.json $c
done
date -u
