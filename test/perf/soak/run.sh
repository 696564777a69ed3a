#!/usr/bin/env bash
# The soak (issue 15, "never grow without bound"): builds the daemon and the soak driver (preset ci), gets
# the pinned etcd + kube-apiserver (test/integration/controlplane.sh build), then runs the real
# kube-scheduler-cpp under steady churn and checks that it does not grow. See docs/performance.md, "Soak".
#
#   test/perf/soak/run.sh [--duration=30m] [--out=DIR] [more soak flags, see --help]
#
# Writes DIR/samples.csv (one row every 10 s), DIR/waves.csv (one row per wave), DIR/summary.txt and the
# daemon's log (DIR defaults to build/soak/<UTC time>). Exit code 0 when every check passed, 1 when one
# failed, 2 on bad flags. Runs everything on 127.0.0.1. KS_SOAK_BUILD_JOBS caps the build's parallelism.
set -euo pipefail
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
out="${out:-$root/build/soak/$(date -u +%Y%m%dT%H%M%SZ)}"

# ccache keys on paths relative to the checkout, so a fresh clone reuses what an earlier build compiled.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
cmake --preset ci >/dev/null
cmake --build --preset ci -j "${KS_SOAK_BUILD_JOBS:-$(nproc)}" --target soak kube-scheduler-cpp >&2
if [ -z "${KS_CONTROL_PLANE_BIN:-}" ]; then
  KS_CONTROL_PLANE_BIN="$(test/integration/controlplane.sh build)"
fi
export KS_CONTROL_PLANE_BIN

mkdir -p "$out"
start=$(date +%s)
rc=0
build/ci/test/perf/soak/soak --out="$out" "${args[@]}" || rc=$?
echo "soak: wall time $(( $(date +%s) - start )) s, exit $rc" >&2
exit "$rc"
