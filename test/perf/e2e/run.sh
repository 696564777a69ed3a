#!/usr/bin/env bash
# The end-to-end throughput benchmark (issue 13): builds the daemon and the driver (preset bench), gets the
# pinned etcd + kube-apiserver + kube-scheduler v1.37.2, then measures on one apiserver: its bare Binding
# capacity, upstream kube-scheduler and kube-scheduler-cpp. See docs/performance.md, "End to end".
#
#   test/perf/e2e/run.sh [--out=DIR] [--nodes=5000] [--pods=10000] [more flags: e2e --help]
#
# Prints the table and writes DIR/results.md, DIR/results.json and each scheduler's config and log (DIR
# defaults to build/e2e/<UTC time>). Exit code 0 when every run finished, 1 otherwise, 2 on bad flags.
# Everything runs on 127.0.0.1. KS_PERF_BUILD_JOBS caps the build's parallelism.
exec "$(dirname "$0")/../support/run_driver.sh" e2e "$@"
