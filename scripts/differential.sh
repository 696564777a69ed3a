#!/usr/bin/env bash
# The deeper differential check: upstream kube-scheduler v1.37.2 and kube-scheduler-cpp decide the same
# randomized pods on one real etcd + kube-apiserver (test/integration/differential). CI runs 2 seeds x 100
# pods; this runs 5 seeds x 200 pods by default and prints every disagreement and the summary line.
#
#   scripts/differential.sh                          # seeds 1..5, 200 pods each
#   KS_DIFF_SEEDS=7 KS_DIFF_PODS=50 scripts/differential.sh
#   KS_DIFF_EXTENDER=1 scripts/differential.sh       # the test's HTTP extender in the loop on every seed (default: seed 2)
#   KS_BUILD_DIR=build/mine scripts/differential.sh  # another build dir (default: the bench preset's build/bench, optimized)
#
# Needs what scripts/test.sh installs (scripts/setup.sh) and Go (once, to build the upstream binaries and kubectl).
set -euo pipefail
cd "$(dirname "$0")/.."

export KS_DIFF_SEEDS="${KS_DIFF_SEEDS:-1,2,3,4,5}"
export KS_DIFF_PODS="${KS_DIFF_PODS:-200}"
build_dir="${KS_BUILD_DIR:-build/bench}"

if [[ ! -f "$build_dir/build.ninja" ]]; then
  if [[ "$build_dir" == build/bench ]]; then
    cmake --preset bench >/dev/null
  else
    cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKS_WERROR=ON >/dev/null
  fi
fi
cmake --build "$build_dir" -j "$(nproc)" --target kube-scheduler-cpp differential_test
# etcd, kube-apiserver, upstream kube-scheduler and kubectl v1.37.2, built once through the Go module proxy.
KS_CONTROL_PLANE_BIN="$(test/integration/controlplane.sh build)"
export KS_CONTROL_PLANE_BIN KS_KUBECTL="$KS_CONTROL_PLANE_BIN/kubectl"
echo "differential: seeds $KS_DIFF_SEEDS, $KS_DIFF_PODS pods each"
log=$(mktemp "${TMPDIR:-/tmp}/ks-differential.XXXXXX.log")
status=0
"$build_dir/test/integration/differential/differential_test" --gtest_color=no | tee "$log" || status=$?
echo "differential: full output in $log"
grep '^DIFFERENTIAL SUMMARY' "$log" || echo "differential: no summary (the test stopped early; see $log)"
exit "$status"
