#!/usr/bin/env bash
# Builds (or reuses) the differential oracle for ks::cel: main.go.in linked with the real
# k8s.io/dynamic-resource-allocation/cel v0.37.2, built from Go modules through the configured module proxy
# (test-only: Go never enters the product). The module and the binary live outside the repo in
# ${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/cel-oracle/<version>-<hash of main.go.in>/.
# Prints ONLY the binary's path on stdout; logs go to stderr.
set -euo pipefail

readonly STAGING_VERSION=v0.37.2  # k8s.io/dynamic-resource-allocation, api, apimachinery of v1.37.2
readonly HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v go >/dev/null 2>&1 || PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null 2>&1 || { echo "cel-oracle: go is not installed" >&2; exit 1; }

hash=$(sha256sum "$HERE/main.go.in" | cut -c1-12)
dir="${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/cel-oracle/${STAGING_VERSION}-${hash}"
bin="$dir/cel-oracle"
if [[ -x "$bin" && -f "$dir/.complete" ]]; then
  printf '%s\n' "$bin"
  exit 0
fi
mkdir -p "$dir/src"
cp "$HERE/main.go.in" "$dir/src/main.go"
cat >"$dir/src/go.mod" <<MOD
module ks.local/cel-oracle

go 1.26.0

require (
	k8s.io/api ${STAGING_VERSION}
	k8s.io/apimachinery ${STAGING_VERSION}
	k8s.io/dynamic-resource-allocation ${STAGING_VERSION}
)
MOD
echo "cel-oracle: go build in $dir/src ($(go version))" >&2
(cd "$dir/src" && GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 \
  go build -trimpath -o "$bin.tmp" . >&2)
mv "$bin.tmp" "$bin"
touch "$dir/.complete"
printf '%s\n' "$bin"
