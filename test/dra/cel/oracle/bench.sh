#!/usr/bin/env bash
# CEL evaluation cost per device, side by side: upstream's k8s.io/dynamic-resource-allocation/cel v0.37.2
# (the oracle, built by build.sh, in bench mode) and ks::cel (dracel_bench, preset bench), on the expressions
# and devices of corpus.jsonl, one after the other on this machine.
#
#   test/dra/cel/oracle/bench.sh [evaluations per case, default 200]
set -euo pipefail
readonly HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$HERE/../../../.." && pwd)"
evals=${1:-200}
bin=$("$HERE/build.sh")
(cd "$root" && export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1 && cmake --preset bench >/dev/null &&
  cmake --build --preset bench --target dracel_bench >&2)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
KS_CEL_BENCH_EVALS=$evals "$bin" <"$HERE/corpus.jsonl" >"$tmp"
"$root/build/bench/test/dra/cel/dracel_bench" "$tmp" "$evals"
