#!/usr/bin/env bash
# The session a user types, with curl: start ductiled on a free loopback port with a fresh
# data directory, upload the unit-cube mesh, submit Kiran's job by mesh id, follow its SSE
# stream to the end, fetch the summary, fields, VTU and CSV, check u_z(top) = 5.272727e-3
# after step 3, and stop the daemon with SIGTERM (exit status 0).
#   test_curl_session.sh DUCTILED_BINARY
set -euo pipefail
BIN=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
PID=
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null || true; rm -rf "$DATA" "$DATA.log"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; tail -30 "$DATA.log"; exit 1; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

DUCTILED_LISTEN=127.0.0.1:$PORT DUCTILED_DATA_DIR=$DATA DUCTILED_GPUS=cpu "$BIN" >"$DATA.log" 2>&1 &
PID=$!
for _ in $(seq 100); do [ -s "$DATA/admin.token" ] && curl -sf -o /dev/null -H "Authorization: Bearer $(cat "$DATA/admin.token")" "http://127.0.0.1:$PORT/v1/health" && break; sleep 0.1; done
TOKEN=$(cat "$DATA/admin.token")
[ "$(stat -c %a "$DATA/admin.token")" = 600 ] || fail "admin.token mode"
API="http://127.0.0.1:$PORT/v1"
AUTH="Authorization: Bearer $TOKEN"

python3 -c "import json; print(json.dumps(json.load(open('$ROOT/examples/unit_cube.json'))['mesh']))" >"$DATA/mesh.json"
MESH=$(curl -sf -H "$AUTH" -H 'Content-Type: application/json' --data-binary @"$DATA/mesh.json" "$API/meshes?name=cube" | json 'd["id"]')
python3 -c "import json; j=json.load(open('$ROOT/examples/unit_cube.json')); del j['mesh']; j['mesh_id']='$MESH'; print(json.dumps(j))" >"$DATA/job.json"
JOB=$(curl -sf -H "$AUTH" -H 'Content-Type: application/json' --data-binary @"$DATA/job.json" "$API/jobs" | json 'd["id"]')

curl -sfN --max-time 60 -H "$AUTH" -H 'Accept: text/event-stream' "$API/jobs/$JOB/events" >"$DATA/events.txt"
grep -q '^event: job.succeeded' "$DATA/events.txt" || fail "no job.succeeded in the stream"
[ "$(grep -c '^id: ' "$DATA/events.txt")" = "$(grep '^id: ' "$DATA/events.txt" | tail -1 | cut -d' ' -f2)" ] || fail "event ids not 1..N"

curl -sf -H "$AUTH" "$API/jobs/$JOB" | json 'd["state"]' | grep -qx succeeded || fail "state"
UZ=$(curl -sf -H "$AUTH" "$API/jobs/$JOB/results" | json 'd["increments"][2]["monitors"]["uz_top"]')
python3 -c "assert abs($UZ - 5.272727e-3) < 1e-9, $UZ" || fail "u_z = $UZ"
UZ8=$(curl -sf -H "$AUTH" "$API/jobs/$JOB/results/increments/3?fields=U" | json 'd["U"][d["node_ids"].index(7)][2]')
python3 -c "assert abs($UZ8 - 5.272727e-3) < 1e-8, $UZ8" || fail "fields u_z = $UZ8"
curl -sf -H "$AUTH" -o "$DATA/inc3.vtu" "$API/jobs/$JOB/results/increments/3/vtu"
grep -q '<VTKFile' "$DATA/inc3.vtu" || fail "VTU"
curl -sf -H "$AUTH" "$API/jobs/$JOB/results/history.csv" | head -1 | grep -q '^step,increment' || fail "CSV"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$API/jobs/$JOB")" = 401 ] || fail "no token must be 401"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "$AUTH" -X DELETE "$API/meshes/$MESH")" = 204 ] || fail "mesh delete"

kill -TERM "$PID"
wait "$PID" || fail "ductiled exited with $? after SIGTERM"
PID=
echo "PASS (job $JOB, u_z = $UZ)"
