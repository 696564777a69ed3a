#!/usr/bin/env bash
# What test/perf/<name>/run.sh does for the drivers that run real processes (soak, e2e, startup):
#
#   test/perf/support/run_driver.sh <name> [--out=DIR | --out DIR] [driver flags...]
#
# Builds the driver <name> and the daemon (preset bench), gets the pinned etcd + kube-apiserver + upstream
# binaries (test/integration/controlplane.sh build, or $KS_CONTROL_PLANE_BIN when set), then runs
# build/bench/test/perf/<name>/<name> --out=DIR with the other flags. DIR defaults to
# build/<name>/<UTC time>. Exits with the driver's code. KS_PERF_BUILD_JOBS caps the build's parallelism.
set -euo pipefail
name=${1:?usage: run_driver.sh <name> [flags]}
shift
cd "$(dirname "$0")/../../.."
root=$PWD

args=()
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out=*) out="${1#--out=}" ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
out="${out:-$root/build/$name/$(date -u +%Y%m%dT%H%M%SZ)}"

# ccache keys on paths relative to the checkout, so a fresh clone reuses what an earlier build compiled.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake --preset bench >/dev/null
cmake --build --preset bench -j "${KS_PERF_BUILD_JOBS:-$(nproc)}" --target "$name" kube-scheduler-cpp >&2
if [ -z "${KS_CONTROL_PLANE_BIN:-}" ]; then
  KS_CONTROL_PLANE_BIN="$(test/integration/controlplane.sh build)"
fi
export KS_CONTROL_PLANE_BIN

mkdir -p "$out"
start=$(date +%s)
rc=0
"build/bench/test/perf/$name/$name" --out="$out" "${args[@]}" || rc=$?
echo "$name: wall time $(( $(date +%s) - start )) s, exit $rc, results in $out" >&2
exit $rc
