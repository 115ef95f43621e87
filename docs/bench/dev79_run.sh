#!/bin/bash
# The CPU matrix-free product: colour by colour (old) against element products per incidence summed per node (new); C3, 16 threads.
B=build-cuda/dev79
nproc; date -u
mkdir -p /tmp/dlib
for pass in 1 2 3; do
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd $B/bench-new | awk '/not found/ {print $1}'); do cp $B/lib/$l /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
for L in 420 800; do
  for v in old new; do
    timeout 120 $B/bench-$v --backend cpu --threads 16 --meshes C3 --precond two_level --forcing adaptive --operator matrix_free --load $L > /tmp/b.log 2>&1; echo "$v $L rc=$?"; grep -E "SpMV|after upload|PCG" /tmp/b.log | head -3
  done
done
date -u
