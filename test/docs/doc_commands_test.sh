#!/usr/bin/env bash
# Runs the commands the documentation shows, as written: every ```sh block of README.md, docs/*.md and
# deploy/README.md, in order, one file after another, each block in `bash -euo pipefail` from the repository
# root, against a real etcd + kube-apiserver (test/integration/controlplane.sh) with two registered nodes
# (there is no kubelet: this test plays it by creating Node objects). $HOME/.kube/config is that control
# plane's admin kubeconfig; kube-scheduler-cpp (this build) and kubectl v1.34.4 are first on PATH.
#
# Blocks fenced as ```console are shown, not run: they need what this machine has not (Docker, a cluster
# whose kubelets run the image); each starts with a "# needs ..." comment saying what.
#
#   doc_commands_test.sh <repository root> <directory of the kube-scheduler-cpp binary>
set -euo pipefail

repo=$(cd "$1" && pwd)
bindir=$(cd "$2" && pwd)
cp_script="$repo/test/integration/controlplane.sh"
KS_CONTROL_PLANE_BIN="${KS_CONTROL_PLANE_BIN:-$("$cp_script" build)}"
export KS_CONTROL_PLANE_BIN

work=$(mktemp -d /tmp/ks-doc-test-XXXXXX)
cleanup() {
  local rc=$?
  "$cp_script" down "$work/cp" >/dev/null 2>&1 || true
  if [[ $rc -eq 0 ]]; then rm -rf "$work"; else echo "doc test: files kept in $work" >&2; fi
}
trap cleanup EXIT

KS_CONTROL_PLANE_OWNER_PID=$$ "$cp_script" up "$work/cp" >/dev/null
mkdir -p "$work/home/.kube"
cp "$work/cp/kubeconfig" "$work/home/.kube/config"
export HOME="$work/home" PATH="$bindir:$KS_CONTROL_PLANE_BIN:$PATH"
unset KUBECONFIG

for n in 0 1; do
  kubectl create -f - >/dev/null <<NODE
{"apiVersion": "v1", "kind": "Node",
 "metadata": {"name": "node-$n", "labels": {"kubernetes.io/hostname": "node-$n"}},
 "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
            "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}
NODE
done

# Prints each ```sh block of a Markdown file, NUL-terminated, prefixed with "<line>\t".
blocks() {
  awk '
    /^```sh[[:space:]]*$/ { inside = 1; start = NR; body = ""; next }
    /^```/ && inside { printf "%d\t%s%c", start, body, 0; inside = 0; next }
    inside { body = body $0 "\n" }
  ' "$1"
}

cd "$repo"
ran=0
failed=0
for doc in README.md docs/*.md deploy/README.md; do
  while IFS= read -r -d '' block; do
    line=${block%%$'\t'*}
    body=${block#*$'\t'}
    echo "=== $doc:$line"
    printf '%s' "$body" | sed 's/^/    /'
    if out=$(timeout 300 bash -euo pipefail -c "$body" 2>&1); then
      ran=$((ran + 1))
    else
      failed=$((failed + 1))
      echo "--- FAILED ($doc:$line):"
      printf '%s\n' "$out" | tail -40
    fi
  done < <(blocks "$doc")
done
# Whatever a block left running in the background (a scheduler started with &).
pkill -f "^$bindir/kube-scheduler-cpp" 2>/dev/null || true
echo "$ran passed, $failed failed"
[[ $failed -eq 0 && $ran -gt 0 ]]
