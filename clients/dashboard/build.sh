#!/usr/bin/env bash
# Build the dashboard into OUTDIR (default: clients/dashboard/dist): `npm ci` from the committed
# package-lock.json (skipped when node_modules already matches it), then `vite build`.
# Needs the npm registry only for `npm ci`; the result has no external references.
set -euo pipefail
cd "$(dirname "$0")"
OUT=${1:-dist}
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
npx --no-install vite build --logLevel warn --outDir "$OUT" --emptyOutDir
test -f "$OUT/index.html"
