#!/usr/bin/env bash
# The end-to-end throughput benchmark (issue 13): builds the daemon and the driver (preset ci), gets the
# pinned etcd + kube-apiserver + kube-scheduler v1.34.4 (test/integration/controlplane.sh build), then
# measures on one apiserver: its bare Binding capacity, upstream kube-scheduler and kube-scheduler-cpp.
# See docs/performance.md, "End to end".
#
#   test/perf/e2e/run.sh [--out=DIR] [--nodes=5000] [--pods=10000] [more flags: e2e --help]
#
# Prints the table and writes DIR/results.md, DIR/results.json and each scheduler's config and log (DIR
# defaults to build/e2e/<UTC time>). Exit code 0 when every run finished, 1 otherwise, 2 on bad flags.
# Everything runs on 127.0.0.1. KS_E2E_BUILD_JOBS caps the build's parallelism.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD

args=()
out=""
for a in "$@"; do
  case "$a" in
    --out=*) out="${a#--out=}" ;;
    *) args+=("$a") ;;
  esac
done
out="${out:-$root/build/e2e/$(date -u +%Y%m%dT%H%M%SZ)}"

# ccache keys on paths relative to the checkout, so a fresh clone reuses what an earlier build compiled.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake --preset ci >/dev/null
cmake --build --preset ci -j "${KS_E2E_BUILD_JOBS:-$(nproc)}" --target e2e kube-scheduler-cpp >&2
if [ -z "${KS_CONTROL_PLANE_BIN:-}" ]; then
  KS_CONTROL_PLANE_BIN="$(test/integration/controlplane.sh build)"
fi
export KS_CONTROL_PLANE_BIN

mkdir -p "$out"
start=$(date +%s)
rc=0
build/ci/test/perf/e2e/e2e --out="$out" "${args[@]}" || rc=$?
echo "e2e: wall time $(( $(date +%s) - start )) s, exit $rc, results in $out" >&2
exit $rc
