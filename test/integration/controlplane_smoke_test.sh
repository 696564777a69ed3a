#!/usr/bin/env bash
# Smoke test of the integration control plane: up, /readyz, namespace + Node + Pod via kubectl, a binding,
# patches, an apiserver restart and an etcd compaction, then down. Fails (never skips) when the control plane
# cannot be built or started.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cp_script="$here/controlplane.sh"
workdir=$(mktemp -d "${TMPDIR:-/tmp}/ks-smoke-XXXXXX")

fail() {
  printf 'controlplane_smoke_test: FAIL: %s\n' "$*" >&2
  exit 1
}
cleanup() {
  "$cp_script" down "$workdir" || true
}
trap cleanup EXIT

expect_eq() {  # <what> <expected> <actual>
  if [[ "$2" != "$3" ]]; then
    fail "$1: expected '$2', got '$3'"
  fi
  printf 'ok: %s = %s\n' "$1" "$3"
}

start=$SECONDS
if ! KS_CONTROL_PLANE_OWNER_PID=$$ "$cp_script" up "$workdir"; then
  fail "could not build/start etcd + kube-apiserver with $cp_script (see the messages above)"
fi
printf 'control plane up in %d s\n' $((SECONDS - start))
# shellcheck source=/dev/null
source "$workdir/env"
k() { kubectl --request-timeout=30s "$@"; }

expect_eq "/readyz" ok "$(k get --raw /readyz)"
server_version=$(k get --raw /version | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p')
printf 'kube-apiserver %s at %s\n' "$server_version" "$KS_APISERVER_URL"
[[ "$server_version" == v1.37.* ]] || fail "unexpected kube-apiserver version '$server_version'"

k create namespace ks-smoke >/dev/null
expect_eq "namespace phase" Active "$(k get namespace ks-smoke -o 'jsonpath={.status.phase}')"

# A Node object with status (nodes keep their status on create; no kubelet exists).
k create -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: smoke-node-1
  labels:
    kubernetes.io/hostname: smoke-node-1
    topology.kubernetes.io/zone: zone-a
status:
  capacity: {cpu: "8", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "7500m", memory: 15Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady, message: smoke}
YAML
expect_eq "node allocatable cpu" 7500m "$(k get node smoke-node-1 -o 'jsonpath={.status.allocatable.cpu}')"
expect_eq "node Ready" True \
  "$(k get node smoke-node-1 -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')"
expect_eq "node taints" "" "$(k get node smoke-node-1 -o 'jsonpath={.spec.taints}')"

# A plain Pod for our scheduler (no service account admission, no controllers needed).
k create -n ks-smoke -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: smoke-pod
  labels: {app: smoke}
spec:
  schedulerName: kube-scheduler-cpp
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    resources:
      requests: {cpu: 500m, memory: 128Mi}
YAML
expect_eq "pod schedulerName" kube-scheduler-cpp \
  "$(k get pod -n ks-smoke smoke-pod -o 'jsonpath={.spec.schedulerName}')"
expect_eq "pod phase" Pending "$(k get pod -n ks-smoke smoke-pod -o 'jsonpath={.status.phase}')"
expect_eq "pod nodeName" "" "$(k get pod -n ks-smoke smoke-pod -o 'jsonpath={.spec.nodeName}')"

# Patches: node label (merge patch), pod status condition (status subresource, as a scheduler does).
k label node smoke-node-1 smoke=yes >/dev/null
k patch node smoke-node-1 --type=merge -p '{"metadata":{"annotations":{"smoke/patched":"true"}}}' >/dev/null
expect_eq "node label" yes "$(k get node smoke-node-1 -o 'jsonpath={.metadata.labels.smoke}')"
expect_eq "node annotation" true \
  "$(k get node smoke-node-1 -o 'jsonpath={.metadata.annotations.smoke/patched}')"
k patch pod -n ks-smoke smoke-pod --subresource=status --type=strategic -p \
  '{"status":{"conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable","message":"smoke"}]}}' \
  >/dev/null
expect_eq "pod PodScheduled reason" Unschedulable \
  "$(k get pod -n ks-smoke smoke-pod -o 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].reason}')"

# Bind the pod the way the scheduler does: POST pods/<name>/binding.
k create --raw /api/v1/namespaces/ks-smoke/pods/smoke-pod/binding -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"Binding","metadata":{"name":"smoke-pod"},"target":{"apiVersion":"v1","kind":"Node","name":"smoke-node-1"}}
JSON
expect_eq "pod nodeName after binding" smoke-node-1 \
  "$(k get pod -n ks-smoke smoke-pod -o 'jsonpath={.spec.nodeName}')"

# compact: etcd refuses reads at older revisions afterwards.
rv=$(k get pod -n ks-smoke smoke-pod -o 'jsonpath={.metadata.resourceVersion}')
k label namespace ks-smoke touched=yes >/dev/null
compacted=$("$cp_script" compact "$workdir") || fail "compact failed"
((compacted > rv)) || fail "compacted revision $compacted <= $rv"
old_read=$(curl -sS --max-time 5 -X POST "$KS_ETCD_URL/v3/kv/range" -d "{\"key\":\"AA==\",\"revision\":\"$rv\"}")
[[ "$old_read" == *"required revision has been compacted"* ]] ||
  fail "etcd read at revision $rv after compaction at $compacted: expected 'compacted', got: $old_read"
printf 'ok: etcd compacted at %s; read at %s -> %s\n' "$compacted" "$rv" "$old_read"

# restart-apiserver keeps the data and the port; the new watch cache starts at the current revision, so an
# older resourceVersion is now 410 Gone.
url_before=$KS_APISERVER_URL
pid_before=$KS_APISERVER_PID
"$cp_script" restart-apiserver "$workdir" || fail "restart-apiserver failed"
# shellcheck source=/dev/null
source "$workdir/env"
expect_eq "apiserver URL after restart" "$url_before" "$KS_APISERVER_URL"
[[ "$KS_APISERVER_PID" != "$pid_before" ]] || fail "apiserver pid unchanged after restart"
expect_eq "pod resourceVersion after restart" "$rv" \
  "$(k get pod -n ks-smoke smoke-pod -o 'jsonpath={.metadata.resourceVersion}')"
expect_eq "pod nodeName after restart" smoke-node-1 \
  "$(k get pod -n ks-smoke smoke-pod -o 'jsonpath={.spec.nodeName}')"
watch_old=$(k get --raw "/api/v1/namespaces/ks-smoke/pods?watch=1&timeoutSeconds=1&resourceVersion=$rv")
[[ "$watch_old" == *'"code":410'* ]] || fail "watch from resourceVersion $rv: expected a 410 event, got: $watch_old"
printf 'ok: watch from compacted rv %s -> %s\n' "$rv" "$watch_old"

"$cp_script" down "$workdir" || fail "down failed"
[[ ! -e "$workdir" ]] || fail "down left $workdir behind"
# Running = signalable and not a zombie (an exited child our parent has not reaped yet).
running() { kill -0 "$1" 2>/dev/null && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != "Z" ]]; }
if running "$KS_APISERVER_PID" || running "$KS_ETCD_PID"; then
  fail "processes still running after down"
fi
trap - EXIT
printf 'PASS (%d s)\n' $((SECONDS - start))
