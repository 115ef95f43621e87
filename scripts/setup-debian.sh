#!/usr/bin/env bash
# Install what ductile needs on a fresh Debian 12 machine (run as root or with sudo).
# The CUDA Toolkit is optional: when nvcc is on PATH (or in /usr/local/cuda/bin) the CUDA
# backend slot is built too.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake pkg-config libjansson-dev libmetis-dev libmicrohttpd-dev libsqlite3-dev \
  libsuitesparse-dev \
  libpq-dev libcurl4-openssl-dev curl python3 ca-certificates gmsh calculix-ccx calculix-ccx-test \
  chromium clang-format openssl postgresql systemd >/dev/null
# libsuitesparse-dev: CHOLMOD, the sparse Cholesky factor of linear.preconditioner "direct"
# on the CPU backend (solver/backend/cpu/cpu_direct.c); a build without it refuses "direct".
# libmetis-dev: METIS partitions meshes for runs on several GPUs (solver/partition/,
# docs/multi-gpu.md); a build without it refuses more than one part.
# libpq-dev: ductiled's PostgreSQL store (server/store_pg.c); postgresql: the server that
# tests/server/pgcluster.py starts for the server_pg_* tests (initdb, postgres, psql, pg_dump),
# as the user postgres when the tests run as root. Debian starts a cluster of its own when it
# installs the package; the tests do not use it.
# systemd: tests/server/test_unit_file.py checks deploy/ductiled.service with systemd-analyze
# verify (nothing is started: the package's programs only read the unit).
# openssl: tests/server/test_tls.py makes its self-signed certificates with the openssl command
# (the daemon's TLS is libmicrohttpd's, with GnuTLS; libmicrohttpd12 brings it).
# The dashboard is built with npm. Machines with a Node.js of their own (e.g. a nodesource
# package, which bundles npm) keep it; Debian's nodejs/npm would conflict with it.
if ! command -v npm >/dev/null 2>&1; then
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
echo "setup-debian: dependencies installed"
