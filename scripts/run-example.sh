#!/usr/bin/env bash
# Run the shipped example through the service: install the build dependencies (Debian), build
# ductiled, start it in the background on its built-in defaults (127.0.0.1:8080, data and the
# SQLite database in ./ductile-data, the CUDA backend when a GPU and nvcc are present, else the
# CPU), submit examples/unit_cube.json with the admin token, follow its progress, print the
# result, and leave the daemon running.
#
# Idempotent: a ductiled already answering on the address is reused (each run submits the job
# again); apt is skipped when the dependencies are there; the build is incremental.
# DUCTILED_LISTEN / DUCTILED_DATA_DIR move the daemon, as they do for ductiled itself;
# DUCTILED_BIN names an already built ductiled and skips set-up and build (the test
# tests/server/test_run_example.sh uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
LISTEN=${DUCTILED_LISTEN:-127.0.0.1:8080}
DATA=${DUCTILED_DATA_DIR:-ductile-data}
URL="http://$LISTEN"
BUILD=build/release
BIN=${DUCTILED_BIN:-$BUILD/server/ductiled}
LOG=$DATA/ductiled.log
PIDFILE=$DATA/ductiled.pid

have_deps() {
  for c in cmake cc make curl python3 pkg-config; do command -v "$c" >/dev/null || return 1; done
  pkg-config --exists libmicrohttpd sqlite3 jansson
}
if [ -z "${DUCTILED_BIN:-}" ]; then
  if ! have_deps; then bash scripts/setup-debian.sh; fi
  if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=/usr/local/cuda/bin:$PATH; fi
  echo "== building ductiled ($BUILD, log $BUILD/build.log)"
  mkdir -p "$BUILD"
  { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDUCTILE_TEST_HOOKS=OFF && cmake --build "$BUILD" -j "$(nproc)" --target ductiled; } \
    >"$BUILD/build.log" 2>&1 || { tail -40 "$BUILD/build.log"; exit 1; }
fi

# HTTP status of an authenticated health request ("000": nothing listening).
health() {
  local tok=""
  [ -s "$DATA/admin.token" ] && tok=$(cat "$DATA/admin.token")
  curl -s -o /dev/null -w '%{http_code}' --max-time 3 -H "Authorization: Bearer $tok" "$URL/v1/health" || true
}

code=$(health)
case "$code" in
  200) echo "== reusing the ductiled already running at $URL" ;;
  000)
    echo "== starting ductiled at $URL (log: $LOG)"
    mkdir -p "$DATA"
    # Its own session: a Ctrl-C here must not reach the daemon (SIGINT makes it drain and exit).
    setsid nohup "$BIN" </dev/null >>"$LOG" 2>&1 &
    echo $! >"$PIDFILE"
    for _ in $(seq 300); do
      [ "$(health)" = 200 ] && break
      if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
        echo "ductiled exited; the end of $LOG:"; tail -20 "$LOG"; exit 1
      fi
      sleep 0.2
    done
    [ "$(health)" = 200 ] || { echo "ductiled did not become ready; see $LOG"; exit 1; }
    ;;
  401) echo "a ductiled at $URL does not accept $DATA/admin.token (another data directory?)"; exit 1 ;;
  *) echo "something else answers at $URL (HTTP $code); set DUCTILED_LISTEN=ADDRESS:PORT"; exit 1 ;;
esac
TOKEN=$(cat "$DATA/admin.token")
AUTH="Authorization: Bearer $TOKEN"

curl -s -H "$AUTH" "$URL/v1/health" | python3 -c "$(cat <<'PY'
import json, sys
for d in json.load(sys.stdin)["devices"]:
    print(f"   device {d['index']} ({d['kind']}): {d['name']}, {d['memory_total'] / 2**30:.1f} GiB")
PY
)"

echo "== submitting examples/unit_cube.json"
resp=$(curl -s -w '\n%{http_code}' -H "$AUTH" -H 'Content-Type: application/json' \
  --data-binary @examples/unit_cube.json "$URL/v1/jobs")
if [ "$(tail -n1 <<<"$resp")" != 201 ]; then echo "submission refused: $(head -n -1 <<<"$resp")"; exit 1; fi
JOB=$(head -n -1 <<<"$resp" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
echo "   job $JOB"

# Follow the event stream (Server-Sent Events) until the job ends.
curl -sN -H "$AUTH" -H 'Accept: text/event-stream' "$URL/v1/jobs/$JOB/events" | python3 -u -c "$(cat <<'PY'
import json, sys
for line in sys.stdin:
    if not line.startswith("data: "):
        continue
    e = json.loads(line[6:])
    t, d = e["type"], e["data"]
    if t == "info":
        print("   " + d["text"])
    elif t == "step.started":
        print(f"step {d['step']}/{d['n_steps']} \"{d['name']}\"")
    elif t == "newton.iteration":
        r = "n/a" if d["residual"] is None else f"{d['residual']:.3e}"
        print(f"  step {d['step']} increment {d['increment']} iteration {d['iteration']}: "
              f"residual {r}, {d['plastic_points']} plastic points")
    elif t == "increment.converged":
        print(f"  step {d['step']} increment {d['increment']} converged at load factor {d['load_factor']:g} "
              f"({d['percent']:.0f}%)")
    elif t.startswith("job."):
        print(f"{t}: {d.get('message') or d.get('state') or ''}")
PY
)"

job=$(curl -s -H "$AUTH" "$URL/v1/jobs/$JOB")
state=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])' <<<"$job")
if [ "$state" = succeeded ]; then
  echo "== result"
  curl -s -H "$AUTH" "$URL/v1/jobs/$JOB/results" | python3 -c "$(cat <<'PY'
import json, sys
s = json.load(sys.stdin)
print(f"   {s['message']} on the {s['backend']} backend, {s['timings']['total']:.3f} s")
print("   step  load factor  u_z top       RF_z bottom")
for i in s["increments"]:
    m = i["monitors"]
    print(f"   {i['step']:4d}  {i['load_factor']:11g}  {m['uz_top']:.6e}  {m['rz_bottom']:.6e}")
print(f"   u_z of the top: {s['increments'][-1]['monitors']['uz_top']:.6e}")
PY
)"
else
  echo "job $JOB ended $state: $(python3 -c 'import json, sys; print(json.load(sys.stdin)["error"])' <<<"$job")"
fi

pid=$( [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null && cat "$PIDFILE" || true)
cat <<EOF

ductiled keeps running at $URL${pid:+ (pid $pid)}
  token:   $DATA/admin.token      log: $LOG      API guide: docs/api.md
  results: curl -H "Authorization: Bearer \$(cat $DATA/admin.token)" $URL/v1/jobs/$JOB/results
  stop:    kill -TERM ${pid:-<pid of ductiled>}   (drains: running increments finish, jobs resume at the next start)
EOF
[ "$state" = succeeded ]
