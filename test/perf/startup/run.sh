#!/usr/bin/env bash
# The start-up benchmark (issue 16): builds the daemon and the driver (preset bench), gets the pinned etcd +
# kube-apiserver + kube-scheduler v1.37.2, fills the apiserver with a large cluster, then starts upstream
# kube-scheduler and kube-scheduler-cpp alone in turn: time to /readyz, CPU, peak and settled RSS; and a
# forced relist (410) of ours. See docs/performance.md, "Start-up and relist".
#
#   test/perf/startup/run.sh [--out=DIR] [--nodes=5000] [--pods=100000] [more flags: startup --help]
#
# Prints the table and writes DIR/results.md, DIR/results.json and each scheduler's config and log (DIR
# defaults to build/startup/<UTC time>). Exit code 0 when every run got ready, 1 otherwise, 2 on bad flags.
# Everything runs on 127.0.0.1. KS_PERF_BUILD_JOBS caps the build's parallelism.
exec "$(dirname "$0")/../support/run_driver.sh" startup "$@"
