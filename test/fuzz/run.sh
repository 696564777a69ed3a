#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of test/fuzz (the `fuzz` CMake preset: clang-14, ASan + UBSan).
#
#   test/fuzz/run.sh smoke [target...]        each target for KS_FUZZ_SECONDS (15) seconds, at most
#                                             KS_FUZZ_SMOKE_RUNS (50000) execs, seed KS_FUZZ_SEED (1)
#   test/fuzz/run.sh long [execs] [target...] each target for `execs` executions (default 10^7), one
#                                             after the other, under nice -n 19
#
# Seeds come from test/fuzz/corpus/<target>/ (read only: new inputs go to a scratch corpus), dictionaries
# from test/fuzz/dict/<target>.dict. Crashes, leaks, timeouts and out-of-memory inputs are written to
# $KS_FUZZ_OUT/<target>/ (default build/fuzz/findings) and make the script exit non-zero, after the
# remaining targets have run. Per target it prints executions, wall time, exec/s and libFuzzer's final
# cov: and ft: counts. KS_FUZZ_NO_BUILD=1 runs the binaries already in build/fuzz; KS_FUZZ_MAX_SECONDS caps
# each long run's wall time; KS_FUZZ_FORK=N runs each long run as N worker processes.
set -uo pipefail

# All in one function, so bash has read the whole script before running any of it (editing the file while
# a long run is under way does not change that run).
main() {
  cd "$(dirname "$0")/../.."
  root=$PWD

  mode=${1:-smoke}
  shift || true
  execs=10000000
  if [ "$mode" = long ] && [[ ${1:-} =~ ^[0-9]+$ ]]; then
    execs=$1
    shift
  fi
  case $mode in smoke | long) ;; *)
    echo "usage: $0 smoke [target...] | long [execs] [target...]" >&2
    exit 2
    ;;
  esac

  # target:max_len. Small lengths keep executions fast; JSON/YAML inputs need room for nested objects, the
  # protobuf recordings for the largest fixture (a pod with every volume source, ~8.5 KB as a list).
  all_targets=(
    quantity_fuzz:64
    label_selector_fuzz:256
    api_json_fuzz:4096
    yaml_fuzz:4096
    node_affinity_fuzz:4096
    scheduler_config_fuzz:4096
    watch_stream_fuzz:4096
    http_response_fuzz:4096
    http_request_fuzz:4096
    kubeconfig_fuzz:4096
    cel_fuzz:1024
    proto_fuzz:12288
  )
  if [ $# -gt 0 ]; then
    selected=()
    for want in "$@"; do
      found=""
      for t in "${all_targets[@]}"; do [ "${t%%:*}" = "$want" ] && found=$t; done
      [ -n "$found" ] || { echo "run.sh: unknown target $want" >&2; exit 2; }
      selected+=("$found")
    done
  else
    selected=("${all_targets[@]}")
  fi

  command -v clang++ >/dev/null || { echo "run.sh: clang++ not found (scripts/setup.sh installs it)" >&2; exit 2; }
  build=$root/build/fuzz
  if [ "${KS_FUZZ_NO_BUILD:-0}" != 1 ]; then
    export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
    t0=$(date +%s)
    cmake --preset fuzz >/dev/null || exit 1
    names=()
    for t in "${selected[@]}"; do names+=("${t%%:*}"); done
    nice cmake --build --preset fuzz -j "${KS_FUZZ_JOBS:-$(nproc)}" --target "${names[@]}" || exit 1
    echo "fuzz build: $(($(date +%s) - t0)) s"
  fi

  out=${KS_FUZZ_OUT:-$build/findings}
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/ks-fuzz.XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  # A sanitizer report aborts (libFuzzer records the input); the UBSan suppressions cover third-party code only.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/test/sanitizers/ubsan.supp"
  export LSAN_OPTIONS="suppressions=$root/test/sanitizers/lsan.supp"
  # Long runs skip allocation stacks, a fifth of their time (ASan hashes every malloc's stack); a finding is
  # re-run with `<binary> <input>`, which prints them in full.
  [ "$mode" = long ] && ASAN_OPTIONS+=":malloc_context_size=0"

  failed=()
  summary=()
  for entry in "${selected[@]}"; do
    name=${entry%%:*}
    max_len=${entry##*:}
    bin=$build/test/fuzz/$name
    [ -x "$bin" ] || { echo "run.sh: $bin not built" >&2; failed+=("$name(missing)"); continue; }
    mkdir -p "$out/$name" "$scratch/$name"
    args=(-timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -max_len="$max_len" -print_final_stats=1
      -artifact_prefix="$out/$name/")
    [ -f "$root/test/fuzz/dict/$name.dict" ] && args+=(-dict="$root/test/fuzz/dict/$name.dict")
    if [ "$mode" = smoke ]; then
      # A fixed seed and an execution cap make the smoke repeatable: a clean run of a commit passes again
      # (the long runs explore with random seeds). KS_FUZZ_SEED=0 lets libFuzzer pick one.
      args+=(-max_total_time="${KS_FUZZ_SECONDS:-15}" -runs="${KS_FUZZ_SMOKE_RUNS:-50000}")
      [ "${KS_FUZZ_SEED:-1}" != 0 ] && args+=(-seed="${KS_FUZZ_SEED:-1}")
      runner=()
    else
      args+=(-runs="$execs")
      # A wall-clock cap for slow targets on a shared machine (0 = none): the summary shows how far it got.
      [ "${KS_FUZZ_MAX_SECONDS:-0}" != 0 ] && args+=(-max_total_time="$KS_FUZZ_MAX_SECONDS")
      # KS_FUZZ_FORK=N spreads the run over N worker processes (libFuzzer's -fork): `execs` counts all of
      # theirs, and the first crash, leak or timeout in any of them still ends the run.
      [ "${KS_FUZZ_FORK:-0}" != 0 ] && args+=(-fork="$KS_FUZZ_FORK")
      runner=(nice -n 19)
    fi
    seeds=()
    [ -d "$root/test/fuzz/corpus/$name" ] && seeds=("$root/test/fuzz/corpus/$name")
    log=$out/$name.log
    t0=$(date +%s.%N)
    "${runner[@]}" "$bin" "${args[@]}" "$scratch/$name" "${seeds[@]}" >"$log" 2>&1
    rc=$?
    secs=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
    # The last status line ("#123 DONE cov: 10 ft: 20 corp: ... exec/s: 99 rss: 30Mb") and the final stats.
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    # Fork mode prints no final stats; its last status line ("#123: cov: ...") has the total.
    [ -z "$runs" ] && runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    rate=$(awk -v r="${runs:-0}" -v s="$secs" 'BEGIN { printf "%d", (s > 0 ? r / s : 0) }')
    line=$(printf '%-22s execs %10s  time %8.1f s  exec/s %7s  cov %5s  ft %6s' "$name" "${runs:-?}" "$secs" \
      "$rate" "${cov:-?}" "${ft:-?}")
    if [ $rc -ne 0 ]; then
      line+="  FAILED (rc $rc, log $log)"
      failed+=("$name")
      grep -E 'ERROR: |FUZZ_CHECK|runtime error|Test unit written' "$log" | head -5 | sed 's/^/    /'
    fi
    echo "$line"
    summary+=("$line")
  done

  echo "---- fuzz $mode summary ----"
  printf '%s\n' "${summary[@]}"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz $mode: FAILED: ${failed[*]} (inputs in $out)" >&2
    exit 1
  fi
}

main "$@"
