#!/usr/bin/env bash
# The whole test suite from a fresh clone: install dependencies, build with warnings as errors,
# build (or reuse) the real etcd + kube-apiserver used by the integration tests, run every test.
# Extra arguments go to ctest (e.g. scripts/test.sh -L unit).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# The integration tests drive the API server with kubectl (part of the machine image here).
command -v kubectl >/dev/null || { echo "test: kubectl not found on PATH; the integration tests need it" >&2; exit 1; }
cmake --preset ci >/dev/null
echo "build: $(nproc) jobs"
start=$(date +%s)
cmake --build --preset ci -j "$(nproc)"
echo "build: $(( $(date +%s) - start )) s"
# The real etcd + kube-apiserver for the integration tests (built once through the Go module proxy,
# then cached outside the repo).
KS_CONTROL_PLANE_BIN="$(test/integration/controlplane.sh build)"
export KS_CONTROL_PLANE_BIN
ctest --preset ci -j "$(nproc)" "$@"
