#!/usr/bin/env bash
# The main job on built-in sample data: build the scheduler and schedule the pending pods of the demo
# cluster (config/demo-cluster.yaml) with the real scheduler over an in-memory API server, explaining
# each decision (per-node filter reasons and per-plugin scores).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
cmake --preset release -DKS_BUILD_TESTS=OFF -DKS_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build --preset release -j "$(nproc)" --target kube-scheduler-cpp
bin=build/release/cmd/kube-scheduler-cpp/kube-scheduler-cpp
"$bin" --version
"$bin" simulate --config config/demo-scheduler.yaml --cluster config/demo-cluster.yaml --explain "$@"
