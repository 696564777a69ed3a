#!/usr/bin/env bash
# Regenerates the differential-oracle corpus for ks::cel (test/dra/cel/oracle/corpus.jsonl):
#   1. generate.py --seed 17 writes the cases (deterministic for a seed): a device table, then one
#      (expression, device) case per line;
#   2. build.sh builds (or reuses) the Go oracle, main.go.in linked with the real
#      k8s.io/dynamic-resource-allocation/cel v0.34.4 (through the Go module proxy; cached outside the repo
#      in ${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/cel-oracle);
#   3. the oracle evaluates every case as kube-scheduler v1.34.4 does (cel.NewCache(10, Features{}),
#      GetOrCompile, DeviceMatches) and records upstream's compile error, match result or runtime error, and
#      the actual cost.
# The checked-in corpus.jsonl is what oracle_test.cpp (ctest -R CelOracle) compares ks::cel with; that
# test needs no Go. Run this after changing generate.py or main.go.in, then commit corpus.jsonl.
#
#   test/dra/cel/oracle/regenerate.sh [--seed N]   (extra arguments go to generate.py)
set -euo pipefail
readonly HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin=$("$HERE/build.sh")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
python3 "$HERE/generate.py" --seed 17 "$@" >"$tmp"
"$bin" <"$tmp" >"$HERE/corpus.jsonl.tmp"
mv "$HERE/corpus.jsonl.tmp" "$HERE/corpus.jsonl"
echo "regenerate: $(($(wc -l <"$HERE/corpus.jsonl") - 1)) cases in $HERE/corpus.jsonl" >&2
