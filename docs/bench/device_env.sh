# Sourced by the device scripts (docs/bench/dev99_run.sh on): with B the folder carried to the
# lent GPU (Release binaries built here and lib/, the libraries the device lacks), copies those
# the binary $1 needs to /tmp/dlib and exports LD_LIBRARY_PATH; defines summ FILE, a line a mesh
# of a ductile-bench --json file.
mkdir -p /tmp/dlib
for pass in 1 2 3; do # a library found may need others
  for l in $(LD_LIBRARY_PATH=/tmp/dlib ldd "$1" | awk '/not found/ {print $1}'); do cp "$B/lib/$l" /tmp/dlib/; done
done
export LD_LIBRARY_PATH=/tmp/dlib
summ() { python3 -c "
import json,sys
for r in json.load(open(sys.argv[1])):
    print('%s %s %s N%d P%d after %.3f s asm %.3f ms (floor %.3f, x%.2f) stress x%.2f spmv %.3f ms (%.0f%% of copy) peak %.2f GB' % (r['mesh'], r['preconditioner'], r['pcg_forcing'], r['newton_iterations'], r['pcg_iterations'], r['seconds_after_upload'], 1e3*r['assembly_per_call_seconds'], 1e3*r['assembly_floor_seconds'], r['assembly_per_call_seconds']/r['assembly_floor_seconds'], r['stress_per_call_seconds']/r['stress_floor_seconds'], 1e3*r['spmv_seconds'], 100*r['spmv_floor_seconds']/r['spmv_seconds'], r['peak_bytes']/1e9))
" "$1"; }
