#!/usr/bin/env bash
# The soak (issue 15, "never grow without bound"): builds the daemon and the soak driver (preset bench), gets
# the pinned etcd + kube-apiserver (test/integration/controlplane.sh build), then runs the real
# kube-scheduler-cpp under steady churn and checks that it does not grow. See docs/performance.md, "Soak".
#
#   test/perf/soak/run.sh [--duration=30m] [--out=DIR] [more soak flags, see --help]
#
# Writes DIR/samples.csv (one row every 10 s), DIR/waves.csv (one row per wave), DIR/summary.txt and the
# daemon's log (DIR defaults to build/soak/<UTC time>). Exit code 0 when every check passed, 1 when one
# failed, 2 on bad flags. Runs everything on 127.0.0.1. KS_PERF_BUILD_JOBS caps the build's parallelism.
exec "$(dirname "$0")/../support/run_driver.sh" soak "$@"
