#!/usr/bin/env bash
# Installs what building and testing kube-scheduler-cpp needs on Debian 12, from Debian's archive.
# Idempotent: packages already present are not touched, and nothing is fetched when all are there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache mold pkg-config git
  libssl-dev zlib1g-dev
  nlohmann-json3-dev libyaml-cpp-dev libspdlog-dev prometheus-cpp-dev
  libgtest-dev libgmock-dev
  # RE2 (Go's regular-expression syntax) for the CEL evaluator of DRA selectors (pkg/dra/cel)
  libre2-dev
  clang-format openssl curl ca-certificates python3 procps
  # the fuzz targets only (test/fuzz, the `fuzz` preset): clang-14, libFuzzer and clang's sanitizer runtimes
  clang libfuzzer-14-dev libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || echo "setup: apt-get update failed; trying the install with the current lists" >&2
if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  failed=()
  for p in "${missing[@]}"; do
    $sudo apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 || failed+=("$p")
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "setup: could not install: ${failed[*]} (see 'apt-get install ${failed[*]}' for the reason)" >&2
    exit 1
  fi
fi
echo "setup: done"
