#!/usr/bin/env bash
# Build the dashboard into OUTDIR (default: clients/dashboard/dist): install the versions pinned
# in the committed package-lock.json (skipped when node_modules already matches it), then
# `vite build`. Needs the npm registry only for the install; the result has no external
# references. `npm ci` is tried first; some npm 11 set-ups record only this platform's optional
# rollup binaries in the lock file and then refuse it as "out of sync", so `npm install` (which
# keeps the locked versions) is the fallback.
set -euo pipefail
cd "$(dirname "$0")"
OUT=${1:-dist}
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error 2>/dev/null ||
    npm install --no-audit --no-fund --loglevel=error
fi
npx --no-install vite build --logLevel warn --outDir "$OUT" --emptyOutDir
test -f "$OUT/index.html"
