#!/usr/bin/env bash
# Runs a binary under heaptrack with the binary's own pid: a stand-in for the daemon binary in the drivers
# that start it (soak: --scheduler-binary=<this file>; e2e: KS_E2E_OUR_BINARY=<this file>).
#
#   KS_HEAPTRACK_TARGET=build/bench/cmd/kube-scheduler-cpp/kube-scheduler-cpp \
#   KS_HEAPTRACK_OUT=/tmp/ht/soak test/perf/soak/run.sh --scheduler-binary="$PWD/test/perf/support/heaptrack_exec.sh"
#
# The `heaptrack` script keeps the program as its child, so the driver would sample the script's RSS and
# its SIGTERM would not reach the program. Here the program is exec'd: the driver's pid, RSS and signals
# are the program's (RSS includes heaptrack's own buffers). Writes $KS_HEAPTRACK_OUT.zst; read it with
# heaptrack_print (or heaptrack --analyze). A SIGKILL keeps what was live at that moment as "leaked".
set -euo pipefail
target=${KS_HEAPTRACK_TARGET:?KS_HEAPTRACK_TARGET names the binary to profile}
out=${KS_HEAPTRACK_OUT:?KS_HEAPTRACK_OUT names the output file, without .zst}
lib=/usr/lib/heaptrack
mkdir -p "$(dirname "$out")"
pipe=$(mktemp -u "${TMPDIR:-/tmp}/heaptrack_exec.XXXXXX")
mkfifo "$pipe"
# The interpreter outlives this shell (it is replaced by exec) and ends at the program's EOF on the pipe.
("$lib/libexec/heaptrack_interpret" <"$pipe" | zstd -q -c >"$out.zst"; rm -f "$pipe") &
LD_PRELOAD="$lib/libheaptrack_preload.so${LD_PRELOAD:+:$LD_PRELOAD}" DUMP_HEAPTRACK_OUTPUT="$pipe" \
  exec "$target" "$@"
