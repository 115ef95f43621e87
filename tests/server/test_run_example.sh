#!/usr/bin/env bash
# scripts/run-example.sh (the README's first command) against the built ductiled
# (DUCTILED_BIN: no apt, no build) on a free port and a temporary data directory: the first run
# starts the daemon in the background, follows the job to the end and prints u_z of the top;
# the second run reuses the same daemon; kill -TERM with the pid it prints stops it cleanly.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$(mktemp -d /tmp/ductiled-example-XXXXXX)
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export DUCTILED_BIN=$1 DUCTILED_LISTEN=127.0.0.1:$PORT DUCTILED_DATA_DIR=$DATA DUCTILED_GPUS=cpu DUCTILED_SOLVER_THREADS=1
cleanup() {
  if [ -s "$DATA/ductiled.pid" ]; then kill -9 "$(cat "$DATA/ductiled.pid")" 2>/dev/null || true; fi
  rm -rf "$DATA"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [ -f "$DATA/ductiled.log" ] && tail -30 "$DATA/ductiled.log"; exit 1; }

out=$(bash "$ROOT/scripts/run-example.sh") || fail "first run: $out"
echo "$out"
grep -q "== starting ductiled at http://127.0.0.1:$PORT" <<<"$out" || fail "the daemon was not started"
grep -q "step 3 increment 1 iteration 2: residual" <<<"$out" || fail "no Newton progress lines"
grep -q "job.succeeded: completed 3 step(s), 3 increments" <<<"$out" || fail "no end of job"
grep -q "u_z of the top: 5.272727e-03" <<<"$out" || fail "wrong or missing u_z of the top"
pid=$(cat "$DATA/ductiled.pid")
grep -q "kill -TERM $pid" <<<"$out" || fail "no stop command"

out=$(bash "$ROOT/scripts/run-example.sh") || fail "second run: $out"
grep -q "== reusing the ductiled already running" <<<"$out" || fail "second run did not reuse the daemon: $out"
grep -q "u_z of the top: 5.272727e-03" <<<"$out" || fail "second run: no result"
[ "$(cat "$DATA/ductiled.pid")" = "$pid" ] || fail "second run changed the pid"

kill -TERM "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "ductiled did not stop after SIGTERM"
grep -q 'msg=stopped' "$DATA/ductiled.log" || fail "no clean stop in the log"
if grep -q "Sanitizer" "$DATA/ductiled.log"; then fail "sanitizer report"; fi
echo PASS
