#!/usr/bin/env bash
# Upstream kube-scheduler's own scheduler_perf GangScheduling benchmark (v1.37.2,
# test/integration/scheduler_perf/podgroup/gangscheduling), run on this machine so that its pods/s stand beside
# test/perf/scheduler_perf's GangScheduling workload (docs/performance.md, "Gang scheduling workloads").
#
#   test/perf/upstream_scheduler_perf.sh [VARIANT ...]
#
# VARIANT: a workload of podgroup/gangscheduling/performance-config.yaml (default:
# 5000Nodes_3Gangs_3000Pods_1000PerGroup 5000Nodes_9Gangs_9000Pods_1000PerGroup 5000Nodes_1000Gangs_3000Pods).
# Each runs alone, one after the other, as `BenchmarkPerfScheduling/GangScheduling/<VARIANT>` with
# -benchtime=1x and -perf-scheduling-label-filter=performance: upstream's harness in one Go process (etcd
# started by it, kube-apiserver, the scheduler with GenericWorkload and the default profile, and its
# createNodes / createPodGroups / createPods ops), everything on 127.0.0.1. Printed per variant from its
# JSON data items: SchedulingThroughput (upstream's collector: bound pods sampled every second, average and
# percentiles of the per-second rates) and SchedulingDuration (measured createPods op: first pod created to
# all bound), as pods / duration.
#
# The test binary is built once (`go test -c`, CGO off, -trimpath as controlplane.sh builds) from the wrapper
# module of test/integration/controlplane.sh (k8s.io/kubernetes and its staging modules at the pinned
# versions; modules come through the configured Go module proxy) and cached in
# ${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/upstream-scheduler-perf/<version>/.
#
# Environment:
#   KS_CONTROL_PLANE_BIN      bin dir of `controlplane.sh build` (for etcd); without it, that build is run
#   KS_UPSTREAM_PERF_OUT      keep the JSON data items and logs in this directory (default: a temporary
#                             directory, removed at the end)
#   KS_UPSTREAM_PERF_ARGS     more test binary flags, e.g. -perf-cpuprofile
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
controlplane=$repo/test/integration/controlplane.sh
readonly PKG=k8s.io/kubernetes/test/integration/scheduler_perf/podgroup/gangscheduling

log() { printf 'upstream_scheduler_perf: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

variants=("$@")
if [[ ${#variants[@]} -eq 0 ]]; then
  variants=(5000Nodes_3Gangs_3000Pods_1000PerGroup 5000Nodes_9Gangs_9000Pods_1000PerGroup
    5000Nodes_1000Gangs_3000Pods)
fi

bin=${KS_CONTROL_PLANE_BIN:-}
[[ -n "$bin" ]] || bin=$("$controlplane" build)
[[ -x "$bin/etcd" ]] || die "no etcd in $bin (KS_CONTROL_PLANE_BIN)"

# The wrapper module and the test binary.
root=${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/upstream-scheduler-perf
mkdir -p "$root"
version=$("$controlplane" go-module "$root/module.new")
cache=$root/$version
mkdir -p "$cache/src"
if ! cmp -s "$root/module.new/go.mod" "$cache/src/go.mod"; then  # new or changed: rebuild
  cp "$root/module.new/go.mod" "$cache/src/go.mod"
  rm -f "$cache/gangscheduling.test"
fi
rm -rf "$root/module.new"
gorun() { (cd "$cache/src" && GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 "$@"); }
test_bin=$cache/gangscheduling.test
if [[ ! -x "$test_bin" ]]; then
  log "building $PKG $version (go test -c; cold: many minutes)"
  start=$SECONDS
  gorun nice -n 10 go test -c -vet=off -trimpath -o "$test_bin.tmp" "$PKG" >&2 || die "go test -c $PKG failed"
  mv "$test_bin.tmp" "$test_bin"
  log "built in $((SECONDS - start)) s"
fi
# The test reads performance-config.yaml and its templates relative to its package directory.
pkg_dir=$(gorun go list -f '{{.Dir}}' "$PKG")

out=${KS_UPSTREAM_PERF_OUT:-}
if [[ -z "$out" ]]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/upstream-scheduler-perf.XXXXXX")
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

# Upstream's recommended settings (scheduler_perf/README.md): no cache mutation detector; with ARTIFACTS set
# each test logs to its own file there, which is deleted when the test passes. (etcd logs at warn anyway.)
export PATH="$bin:$PATH" KUBE_CACHE_MUTATION_DETECTOR=false
# The in-process kube-apiserver finds its package directory from its source file name, which -trimpath makes
# relative (module@version/...); it then joins it to TEST_SRCDIR/TEST_WORKSPACE (meant for bazel): the module
# cache.
TEST_SRCDIR=$(gorun go env GOMODCACHE)
export TEST_SRCDIR TEST_WORKSPACE=.

printf '%s\n' "upstream kube-scheduler $version scheduler_perf GangScheduling, $(nproc) cpus, $(date -u +%FT%TZ)"
for v in "${variants[@]}"; do
  dir=$out/$v
  mkdir -p "$dir/artifacts"
  # etcd listens on a unix socket in its data dir under TMPDIR: keep the path short (108 bytes at most).
  tmp=$(mktemp -d /tmp/usp.XXXXXX)
  log "running GangScheduling/$v"
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  # shellcheck disable=SC2086 # KS_UPSTREAM_PERF_ARGS is a list of flags
  if ! (cd "$pkg_dir" && ARTIFACTS="$dir/artifacts" TMPDIR="$tmp" "$test_bin" -test.run='^$' \
          -test.bench="^BenchmarkPerfScheduling\$/^GangScheduling\$/^${v}\$" -test.benchtime=1x \
          -test.timeout=1h -perf-scheduling-label-filter=performance -data-items-dir="$dir" \
          -with-data-items-unique-id=false ${KS_UPSTREAM_PERF_ARGS:-}) >"$dir/test.log" 2>&1; then
    tail -n 40 "$dir/test.log" >&2
    rm -rf "$tmp"
    die "GangScheduling/$v failed (log: $dir/test.log)"
  fi
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  json=$(ls "$dir"/BenchmarkPerfScheduling_benchmark_gangscheduling_*.json 2>/dev/null | tail -n 1)
  [[ -n "$json" ]] || die "GangScheduling/$v wrote no data items (log: $dir/test.log)"
  rm -rf "$tmp"
  jq -r --arg v "$v" --arg lb "$load_before" --arg la "$load_after" '
    def item(m): [.dataItems[] | select(.labels.Metric == m)][0];
    def f(x): if x == null then "-" else (x * 10 | round / 10 | tostring) end;
    ($v | capture("^(?<nodes>[0-9]+)Nodes_(?<groups>[0-9]+)Gangs(_(?<pods>[0-9]+)Pods)?(_(?<per>[0-9]+)PerGroup)?")) as $c
    | (if $c.pods then ($c.pods | tonumber) else ($c.groups | tonumber) * 3 end) as $pods
    | item("SchedulingThroughput") as $t | item("SchedulingDuration") as $d
    | "GangScheduling/\($v): \($c.nodes) nodes, \($pods) pods in \($c.groups) gangs\n"
      + "  throughput samples (pods/s)  avg \(f($t.data.Average))  p50 \(f($t.data.Perc50))  p90 \(f($t.data.Perc90))"
      + "  p99 \(f($t.data.Perc99))\n"
      + "  createPods -> all bound      \(f($d.data.Duration)) s = "
      + (if $d.data.Duration then f($pods / $d.data.Duration) else "-" end) + " pods/s\n"
      + "  load average before \($lb), after \($la)"' "$json"
done
[[ -n "${KS_UPSTREAM_PERF_OUT:-}" ]] && log "data items and logs in $out"
exit 0
