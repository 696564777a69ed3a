#!/usr/bin/env bash
# The whole test suite from a fresh clone: install dependencies, build with warnings as errors,
# build (or reuse) the real etcd + kube-apiserver used by the integration tests, run every test.
# Extra arguments go to ctest (e.g. scripts/test.sh -L unit).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# ccache keys on paths relative to the checkout (and not on the build dir), so a fresh clone reuses what an
# earlier build compiled.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
# Four build trees (ci, asan, tsan, fuzz) need about 8 GB of cache; ccache's default 5 GB evicts between runs.
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-12G}"
cmake --preset ci >/dev/null
echo "build: $(nproc) jobs"
start=$(date +%s)
cmake --build --preset ci -j "$(nproc)"
echo "build: $(( $(date +%s) - start )) s"
# The real etcd + kube-apiserver for the integration tests (built once through the Go module proxy,
# then cached outside the repo), and kubectl v1.34.4 from the same build, which the tests and the
# documented commands (test/docs) use.
KS_CONTROL_PLANE_BIN="$(test/integration/controlplane.sh build)"
export KS_CONTROL_PLANE_BIN KS_KUBECTL="$KS_CONTROL_PLANE_BIN/kubectl"
ctest --preset ci -j "$(nproc)" "$@"

# Fuzz smoke (KS_FUZZ_SMOKE=0 skips it; needs clang): every libFuzzer target of test/fuzz for 15 s from its
# seed corpus, under ASan + UBSan with leak detection. A crash, sanitizer report, leak, timeout (10 s per
# input) or out-of-memory (2 GB) fails the run; the input is kept in build/fuzz/findings/<target>/.
fuzz_smoke() {
  if ! command -v clang++ >/dev/null; then
    echo "fuzz smoke: skipped (no clang++)"
    return 0
  fi
  local t0
  t0=$(date +%s)
  test/fuzz/run.sh smoke
  echo "fuzz smoke: $(( $(date +%s) - t0 )) s (build + runs)"
}
if [ "${KS_FUZZ_SMOKE:-1}" != 0 ]; then
  fuzz_smoke
fi

# Sanitizer lanes (KS_SANITIZER_LANES=0 skips them): every unit test under AddressSanitizer +
# UndefinedBehaviorSanitizer, and the concurrency-heavy ones (marked CONCURRENCY in test/: queue, cache,
# scheduler with its binding pool and event recorder, informers, leader election, worker pool, framework
# with waiting pods, in-memory API watches, simulator) under ThreadSanitizer. Any report fails the run.
if [ "${KS_SANITIZER_LANES:-1}" != 0 ]; then
  sanitizer_lane() {  # <preset> <build target>: runs the unit tests of the executables that target builds
    local preset=$1 target=$2 t0
    cmake --preset "$preset" >/dev/null
    t0=$(date +%s)
    cmake --build --preset "$preset" -j "$(nproc)" --target "$target"
    echo "build ($preset): $(( $(date +%s) - t0 )) s"
    ctest --preset "$preset" -L unit -j "$(nproc)"
  }
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_init_order=1"
  export UBSAN_OPTIONS="print_stacktrace=1:suppressions=$PWD/test/sanitizers/ubsan.supp"
  export LSAN_OPTIONS="suppressions=$PWD/test/sanitizers/lsan.supp"
  sanitizer_lane asan unit-tests
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/test/sanitizers/tsan.supp"
  sanitizer_lane tsan concurrency-tests
fi
