#!/usr/bin/env bash
# The whole test suite from a fresh clone: install dependencies, build with warnings as errors under
# AddressSanitizer + UndefinedBehaviorSanitizer, build (or reuse) the real etcd + kube-apiserver used by the
# integration tests, run every test, then the fuzz smoke run and the ThreadSanitizer lane.
# Extra arguments go to the main ctest run (e.g. scripts/test.sh -L unit).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# ccache keys on paths relative to the checkout (and not on the build dir), so a fresh clone reuses what an
# earlier build compiled.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# Three build trees (ci, tsan, fuzz) need about 6 GB of cache; ccache's default 5 GB evicts between runs.
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-12G}"
suite_start=$(date +%s)

# The layer order of docs/architecture.md: no product include points up it.
scripts/check_layers.py

# The main lane: one tree (the ci preset: GCC, -O0, ASan + UBSan, -Werror) serves every test, unit and
# integration, so the suite compiles the product and its tests once for both "does it work" and "is it
# memory-safe". Any sanitizer report fails the test that hit it, including one from a daemon an
# integration test started.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_init_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:suppressions=$PWD/test/sanitizers/ubsan.supp"
export LSAN_OPTIONS="suppressions=$PWD/test/sanitizers/lsan.supp"
cmake --preset ci >/dev/null
echo "build: $(nproc) jobs"
start=$(date +%s)
cmake --build --preset ci -j "$(nproc)"
echo "build (ci): $(( $(date +%s) - start )) s"
# The real etcd + kube-apiserver for the integration tests (built once through the Go module proxy,
# then cached outside the repo), and kubectl v1.37.2 from the same build, which the tests and the
# documented commands (test/docs) use.
start=$(date +%s)
KS_CONTROL_PLANE_BIN="$(test/integration/controlplane.sh build)"
export KS_CONTROL_PLANE_BIN KS_KUBECTL="$KS_CONTROL_PLANE_BIN/kubectl"
echo "control plane: $(( $(date +%s) - start )) s"

fuzz_smoke=${KS_FUZZ_SMOKE:-1}
if [ "$fuzz_smoke" != 0 ] && ! command -v clang++ >/dev/null; then
  echo "fuzz smoke: skipped (no clang++)"
  fuzz_smoke=0
fi
tsan_lane=${KS_SANITIZER_LANES:-1}

# The other lanes' trees build while the main lane's tests run: those spend much of their time waiting on
# etcd and kube-apiserver, and the builds take up that CPU. Their output goes to build/lanes.log.
mkdir -p build
lanes_log=build/lanes.log
(
  set -e
  if [ "$fuzz_smoke" != 0 ]; then
    t0=$(date +%s)
    cmake --preset fuzz >/dev/null
    nice cmake --build --preset fuzz -j "$(nproc)"
    echo "build (fuzz): $(( $(date +%s) - t0 )) s"
  fi
  if [ "$tsan_lane" != 0 ]; then
    t0=$(date +%s)
    cmake --preset tsan >/dev/null
    nice cmake --build --preset tsan -j "$(nproc)" --target concurrency-tests
    echo "build (tsan): $(( $(date +%s) - t0 )) s"
  fi
) >"$lanes_log" 2>&1 &
lanes_pid=$!
# If the main lane fails, the builds behind it stop too.
kill_tree() {
  local child
  for child in $(pgrep -P "$1"); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
trap 'kill_tree "$lanes_pid"' EXIT

start=$(date +%s)
ctest --preset ci -j "$(nproc)" "$@"
echo "tests (ci): $(( $(date +%s) - start )) s"

start=$(date +%s)
if ! wait "$lanes_pid"; then
  tail -n 60 "$lanes_log"
  echo "the fuzz or tsan build failed (all of its output: $lanes_log)" >&2
  exit 1
fi
trap - EXIT
grep -E '^build \((fuzz|tsan)\): ' "$lanes_log" || true
echo "waited for the fuzz and tsan builds: $(( $(date +%s) - start )) s"

# Fuzz smoke (KS_FUZZ_SMOKE=0 skips it; needs clang): every libFuzzer target of test/fuzz for 15 s from its
# seed corpus, under ASan + UBSan with leak detection. A crash, sanitizer report, leak, timeout (10 s per
# input) or out-of-memory (2 GB) fails the run; the input is kept in build/fuzz/findings/<target>/.
if [ "$fuzz_smoke" != 0 ]; then
  start=$(date +%s)
  KS_FUZZ_NO_BUILD=1 test/fuzz/run.sh smoke
  echo "fuzz smoke: $(( $(date +%s) - start )) s"
fi

# The ThreadSanitizer lane (KS_SANITIZER_LANES=0 skips it): the concurrency-heavy unit tests (marked
# CONCURRENCY in test/: queue, cache, scheduler with its binding pool and event recorder, informers, leader
# election, worker pool, framework with waiting pods, in-memory API watches, simulator). Any report fails
# the run.
if [ "$tsan_lane" != 0 ]; then
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/test/sanitizers/tsan.supp"
  start=$(date +%s)
  ctest --preset tsan -L unit -j "$(nproc)"
  echo "tests (tsan): $(( $(date +%s) - start )) s"
fi
echo "suite: $(( $(date +%s) - suite_start )) s"
