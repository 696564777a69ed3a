#!/usr/bin/env bash
# The main job on built-in sample data: build the scheduler and run it.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target kube-scheduler-cpp
bin=build/release/cmd/kube-scheduler-cpp/kube-scheduler-cpp
"$bin" --version
"$bin" --help
