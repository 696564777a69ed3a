#!/usr/bin/env bash
# Regenerates the differential-oracle corpus for ks::cel (test/dra/cel/oracle/corpus.jsonl):
#   1. generate.py --seed 17 writes the cases (deterministic for a seed): a device table, then one
#      (expression, device) case per line;
#   2. build.sh builds (or reuses) the Go oracle, main.go.in linked with the real
#      k8s.io/dynamic-resource-allocation/cel v0.37.2 (through the Go module proxy; cached outside the repo
#      in ${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/cel-oracle);
#   3. the oracle evaluates every case as kube-scheduler v1.37.2 does (cel.NewCache(10, Features{EnableConsumableCapacity: true}),
#      GetOrCompile, DeviceMatches) and records upstream's compile error, match result or runtime error, and
#      the actual cost.
#   4. conformance.py turns the cel-spec conformance tests in the Go module cache
#      ($(go env GOMODCACHE)/cel.dev/expr@v0.25.1/tests/simple/testdata) that fit DRA's environment into
#      cases too, and the oracle answers them into conformance.jsonl.
# The checked-in corpus.jsonl and conformance.jsonl are what oracle_test.cpp (ctest -R CelOracle)
# compares ks::cel with; that test needs no Go. Run this after changing generate.py, conformance.py or
# main.go.in, then commit both files.
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

command -v go >/dev/null 2>&1 || PATH="$PATH:/usr/local/go/bin"
testdata="$(go env GOMODCACHE)/cel.dev/expr@v0.25.1/tests/simple/testdata"
if [[ ! -d "$testdata" ]]; then  # fetch the module through the proxy into the module cache
  (cd "$(dirname "$bin")/src" && GOWORK=off GOFLAGS=-mod=mod go mod download cel.dev/expr@v0.25.1 >&2)
fi
python3 "$HERE/conformance.py" "$testdata" >"$tmp"
"$bin" <"$tmp" >"$HERE/conformance.jsonl.tmp"
mv "$HERE/conformance.jsonl.tmp" "$HERE/conformance.jsonl"
echo "regenerate: $(($(wc -l <"$HERE/conformance.jsonl") - 1)) cases in $HERE/conformance.jsonl" >&2
