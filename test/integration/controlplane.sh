#!/usr/bin/env bash
# A real etcd + kube-apiserver, and on request kube-controller-manager, on loopback for the integration tests.
#
#   controlplane.sh build                 build (or reuse) the pinned binaries (etcd, kube-apiserver,
#                                         kube-controller-manager, kube-scheduler for the differential
#                                         test, and kubectl for the tests and the documented commands);
#                                         prints ONLY the bin dir
#   controlplane.sh up <workdir>          certs, etcd, kube-apiserver on free ports; writes <workdir>/kubeconfig
#                                         and <workdir>/env (shell-sourceable KUBECONFIG, KS_APISERVER_URL, ...)
#   controlplane.sh down <workdir>        stop everything (TERM, then KILL after 15 s), remove the data and
#                                         <workdir>
#   controlplane.sh restart-apiserver <workdir>
#                                         restart kube-apiserver only (same port and flags), wait for /readyz
#   controlplane.sh kill-apiserver <workdir>
#                                         SIGKILL kube-apiserver (no graceful shutdown: open requests and
#                                         watches are cut), return once it is gone; etcd keeps running
#   controlplane.sh start-apiserver <workdir>
#                                         start kube-apiserver again after kill-apiserver (same port and
#                                         flags), wait for /readyz
#   controlplane.sh compact <workdir>     compact etcd at its current revision; prints that revision
#   controlplane.sh start-controller-manager <workdir> <controllers>
#                                         start kube-controller-manager running only <controllers> (its
#                                         --controllers list, e.g. disruption-controller,persistentvolume-
#                                         binder-controller) on a free port; waits until its /healthz
#                                         lists each of them; the log goes to <workdir>/kube-controller-
#                                         manager.log
#   controlplane.sh stop-controller-manager <workdir>
#                                         stop it (no-op when not running); start it again with start-...
#   controlplane.sh go-module <dir>       write the wrapper module the Kubernetes binaries are built from
#                                         (k8s.io/kubernetes and its staging modules at the pinned versions)
#                                         to <dir>/go.mod, for other Go builds from it (e.g. upstream's
#                                         scheduler_perf, test/perf/upstream_scheduler_perf.sh); prints
#                                         the Kubernetes version
#
# Binaries are built from Go modules through the configured module proxy (never downloaded as binaries) and
# cached outside the repo in ${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/controlplane/<k8s>_<etcd>/bin.
# Everything listens on 127.0.0.1 only. Logs go to stderr; `build` prints only the bin dir on stdout.
#
# Environment:
#   KS_CONTROL_PLANE_BIN        bin dir from `build`; without it `up` runs `build` itself
#   KS_CONTROL_PLANE_OWNER_PID  `up` starts a watcher that runs `down` once this process is gone (crashes,
#                               kill -9, ctest timeouts), also while `up` itself is still running
#   KS_APISERVER_EXTRA_FLAGS    extra kube-apiserver flags (whitespace separated), kept across restarts
#   KS_CONTROL_PLANE_KEEP_LOGS=1  `down` keeps etcd.log / kube-apiserver.log / kube-controller-manager.log in
#                               <workdir>
#   KS_CONTROL_PLANE_READY_TIMEOUT  seconds to wait for /readyz, or kube-controller-manager's /healthz
#                               (default 90)
#
# Compaction and 410 Gone: with the watch cache on (the default) kube-apiserver serves watches and lists at
# older resourceVersions from its cache even after `compact`. Use KS_APISERVER_EXTRA_FLAGS=--watch-cache=false
# to have them reach etcd (then 410 right after `compact`), or `restart-apiserver`: the new cache starts at
# the current revision, so older resourceVersions get 410 "too old resource version".
set -euo pipefail

# Pinned versions. KUBE_VERSION: the upstream release this project follows, the newest v1.37 patch on the
# module proxy (`go list -m -versions k8s.io/kubernetes`). ETCD_VERSION: the etcd kubeadm v1.37.2 deploys
# (cmd/kubeadm/app/constants: DefaultEtcdVersion = "3.7.0-0"), also the client kube-apiserver v1.37.2 links.
readonly KUBE_VERSION=v1.37.2
readonly STAGING_VERSION=v0.37.2
readonly ETCD_VERSION=v3.7.0

# The staging modules that k8s.io/kubernetes@v1.37.2's go.mod requires at v0.0.0 and replaces with
# ./staging/src/... paths (its replace block also lists sample-cli-plugin and sample-controller, which it does
# not require and which are not published at v0.37.2, so they are left out).
readonly STAGING_MODULES=(
  api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap
  code-generator component-base component-helpers controller-manager cri-api cri-client cri-streaming
  csi-translation-lib dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator
  kube-controller-manager kube-proxy kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission
  sample-apiserver streaming
)

readonly CACHE_ROOT="${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/controlplane"
readonly CACHE_KEY="${KUBE_VERSION}_${ETCD_VERSION}"
readonly READY_TIMEOUT="${KS_CONTROL_PLANE_READY_TIMEOUT:-90}"

# "|| true": the caller may have gone away (closed pipe); keep going so that cleanup still happens.
log() { printf 'controlplane: %s\n' "$*" >&2 || true; }
die() { printf 'controlplane: error: %s\n' "$*" >&2 || true; exit 1; }

# ---------------------------------------------------------------------------------------------------- build

# Built from the wrapper module next to kube-apiserver. A binary counts only once its "<name> <version>" line
# is in .complete (written after the binary is in place), so an interrupted build is redone, not trusted.
readonly KUBE_EXTRA_BINARIES=(kube-scheduler kube-controller-manager kubectl)

bin_recorded() {  # <bin dir> <name> <version>
  [[ -x "$1/$2" ]] && grep -qxF -- "$2 $3" "$1/.complete" 2>/dev/null
}

# etcd and kube-apiserver are there: the expensive part. Others may be missing (a bin dir built before they
# were added to the harness); those are built on their own.
bin_dir_has_base() {
  bin_recorded "$1" etcd "$ETCD_VERSION" && bin_recorded "$1" kube-apiserver "$KUBE_VERSION"
}

bin_dir_missing() {  # <bin dir> -> the KUBE_EXTRA_BINARIES not yet recorded, one per line
  local b
  for b in "${KUBE_EXTRA_BINARIES[@]}"; do
    bin_recorded "$1" "$b" "$KUBE_VERSION" || printf '%s\n' "$b"
  done
}

bin_dir_complete() {
  bin_dir_has_base "$1" && [[ -z "$(bin_dir_missing "$1")" ]]
}

# Version stamping of the Kubernetes binaries, as upstream's build does (`kube-scheduler --version`).
kube_ldflags() {
  local v=k8s.io/component-base/version minor=${KUBE_VERSION#v1.}
  minor=${minor%%.*}
  printf '%s' "-X $v.gitVersion=$KUBE_VERSION -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean \
-X $v.buildDate=1970-01-01T00:00:00Z"
}

write_apiserver_module() {
  local dir=$1 m
  mkdir -p "$dir"
  {
    printf 'module ks.local/controlplane/apiserver\n\ngo 1.26.0\n\n'
    printf 'require k8s.io/kubernetes %s\n\nreplace (\n' "$KUBE_VERSION"
    for m in "${STAGING_MODULES[@]}"; do
      printf '\tk8s.io/%s => k8s.io/%s %s\n' "$m" "$m" "$STAGING_VERSION"
    done
    printf ')\n'
  } >"$dir/go.mod"
}

write_etcd_module() {
  local dir=$1
  mkdir -p "$dir"
  # etcd's own go.mod replaces its sibling modules with ../ paths (ignored for dependencies), so the wrapper
  # pins them. It has its own main, the entry point etcd's main.go calls, so the build does not depend on
  # where (or whether) the server module keeps a main package.
  cat >"$dir/go.mod" <<EOF
module ks.local/controlplane/etcd

go 1.26.0

require (
	go.etcd.io/etcd/server/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/api/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/client/pkg/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/client/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/pkg/v3 ${ETCD_VERSION}
)
EOF
  printf '%s\n' 'package main' '' 'import (' '	"os"' '' '	"go.etcd.io/etcd/server/v3/etcdmain"' ')' '' \
    'func main() { etcdmain.Main(os.Args) }' >"$dir/main.go"
}

go_build() {  # <module dir> <output> <package> [ldflags]
  local dir=$1 out=$2 pkg=$3 ldflags=${4:-}
  log "go build $pkg (in $dir)"
  local start=$SECONDS
  if ! (cd "$dir" && GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 \
          go build -trimpath -ldflags "-s -w $ldflags" -o "$out" "$pkg" >&2); then
    die "go build $pkg failed (module $dir); see the errors above"
  fi
  log "built $(basename "${out%.tmp}") in $((SECONDS - start)) s"
}

cmd_build() {
  local key_dir="$CACHE_ROOT/$CACHE_KEY"
  local bin="$key_dir/bin"
  if bin_dir_complete "$bin"; then
    printf '%s\n' "$bin"
    return 0
  fi
  command -v go >/dev/null 2>&1 ||
    die "go is not installed (needed once to build etcd $ETCD_VERSION and the Kubernetes $KUBE_VERSION" \
      "binaries)"
  mkdir -p "$key_dir"
  exec 9>"$key_dir/.lock"
  log "waiting for the build lock $key_dir/.lock"
  flock 9
  if bin_dir_complete "$bin"; then  # someone else built it while we waited
    exec 9>&-
    printf '%s\n' "$bin"
    return 0
  fi
  write_apiserver_module "$key_dir/src/apiserver"
  if bin_dir_has_base "$bin"; then
    # Only binaries added to the harness later are missing: build just those into the existing dir (a cold
    # kube-apiserver build is many minutes).
    local b
    for b in $(bin_dir_missing "$bin"); do
      log "adding $b $KUBE_VERSION to $bin with $(go version)"
      rm -f "$bin/$b.tmp"
      go_build "$key_dir/src/apiserver" "$bin/$b.tmp" "k8s.io/kubernetes/cmd/$b" "$(kube_ldflags)"
      mv "$bin/$b.tmp" "$bin/$b"
      grep -vxF -- "$b $KUBE_VERSION" "$bin/.complete" >"$bin/.complete.tmp" || true
      printf '%s %s\n' "$b" "$KUBE_VERSION" >>"$bin/.complete.tmp"
      mv "$bin/.complete.tmp" "$bin/.complete"
    done
  else
    log "building kube-apiserver, ${KUBE_EXTRA_BINARIES[*]} $KUBE_VERSION and etcd $ETCD_VERSION with" \
      "$(go version) (cold: many minutes)"
    local tmp="$key_dir/bin.tmp" b
    rm -rf "$tmp"
    mkdir -p "$tmp"
    write_etcd_module "$key_dir/src/etcd"
    go_build "$key_dir/src/etcd" "$tmp/etcd" .
    go_build "$key_dir/src/apiserver" "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver "$(kube_ldflags)"
    printf 'etcd %s\nkube-apiserver %s\n' "$ETCD_VERSION" "$KUBE_VERSION" >"$tmp/.complete"
    for b in "${KUBE_EXTRA_BINARIES[@]}"; do
      go_build "$key_dir/src/apiserver" "$tmp/$b" "k8s.io/kubernetes/cmd/$b" "$(kube_ldflags)"
      printf '%s %s\n' "$b" "$KUBE_VERSION" >>"$tmp/.complete"
    done
    rm -rf "$bin"
    mv "$tmp" "$bin"
  fi
  exec 9>&-
  log "binaries in $bin"
  printf '%s\n' "$bin"
}

# ------------------------------------------------------------------------------------------------ helpers

# A port on 127.0.0.1 nobody listens on, below the ephemeral range (32768+) so that outgoing connections do
# not take it. Callers still retry when the bind races with someone else.
free_port() {
  local port i
  for ((i = 0; i < 200; i++)); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    if ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; then
      continue
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      continue
    fi
    printf '%s\n' "$port"
    return 0
  done
  die "no free port found on 127.0.0.1"
}

# True when <pid> is alive and was started with <workdir> in its command line (guards against pid reuse).
pid_is_ours() {
  local pid=$1 dir=$2
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir"
}

# True while the process runs. A zombie (exited, not yet reaped: PID 1 of a container may never reap
# it) counts as stopped, or every stop would wait out the full TERM timeout.
pid_running() {  # <pid>
  kill -0 "$1" 2>/dev/null || return 1
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ "$state" != "Z" ]]
}

stop_pid() {  # <pid> <workdir> <name>: TERM, wait up to 15 s, then KILL
  local pid=$1 dir=$2 name=$3 i
  pid_is_ours "$pid" "$dir" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do
    pid_running "$pid" || { log "$name ($pid) stopped"; return 0; }
    sleep 0.1
  done
  log "$name ($pid) did not stop after TERM; sending KILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    pid_running "$pid" || return 0
    sleep 0.1
  done
  log "warning: $name ($pid) still alive after KILL"
}

# Waits until nothing listens on 127.0.0.1:<port> any more (up to 10 s). A killed multi-threaded process's
# leader shows as a zombie (pid_running: stopped) while its other threads still exit and its listening
# socket is still open; starting the apiserver again on the same port then fails with "address already in
# use" (seen in CI).
wait_port_released() {  # <port>
  local i
  for ((i = 0; i < 200; i++)); do
    ss -Hltn "sport = :$1" 2>/dev/null | grep -q . || return 0
    sleep 0.05
  done
  log "warning: 127.0.0.1:$1 still has a listener"
}

# launch_apiserver on the port of <workdir>'s env, retried while that port is still held (a restart must
# keep the port: clients and kubeconfigs point at it).
relaunch_apiserver() {  # <workdir>
  local w=$1 attempt
  for ((attempt = 1; attempt <= 5; attempt++)); do
    wait_port_released "$KS_APISERVER_PORT"
    launch_apiserver "$w" && return 0
    tail -n 20 "$w/kube-apiserver.log" | grep -q 'address already in use' || return 1
    log "kube-apiserver port $KS_APISERVER_PORT still taken; retrying"
    sleep 1
  done
  return 1
}

abs_workdir() {
  [[ -n "${1:-}" ]] || die "missing <workdir>"
  [[ "$1" != *[\'$'\n']* ]] || die "workdir must not contain quotes or newlines: $1"
  mkdir -p "$1"
  (cd "$1" && pwd -P)
}

load_env() {  # <workdir>
  [[ -f "$1/env" ]] || die "$1/env not found (no control plane was started there)"
  # shellcheck source=/dev/null
  source "$1/env"
}

log_tail() {  # <file> <what>
  printf 'controlplane: ---- last lines of %s (%s) ----\n' "$2" "$1" >&2
  tail -n "${KS_CONTROL_PLANE_LOG_LINES:-40}" "$1" >&2 2>/dev/null || true
  printf 'controlplane: ----\n' >&2
}

# ---------------------------------------------------------------------------------------------------- pki

gen_pki() {  # <pki dir>
  local d=$1
  mkdir -p "$d"
  cat >"$d/openssl.cnf" <<'CNF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
subjectKeyIdentifier = hash
[v3_server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, IP:10.0.0.1
[v3_client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = clientAuth
CNF
  local key
  for key in ca apiserver admin sa; do
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$d/$key.key" 2>/dev/null
  done
  openssl pkey -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
  openssl req -x509 -new -config "$d/openssl.cnf" -extensions v3_ca -key "$d/ca.key" -subj "/CN=ks-test-ca" \
    -days 3650 -out "$d/ca.crt" 2>/dev/null
  openssl req -new -config "$d/openssl.cnf" -key "$d/apiserver.key" -subj "/CN=kube-apiserver" \
    -out "$d/apiserver.csr" 2>/dev/null
  openssl x509 -req -in "$d/apiserver.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 \
    -extfile "$d/openssl.cnf" -extensions v3_server -out "$d/apiserver.crt" 2>/dev/null
  openssl req -new -config "$d/openssl.cnf" -key "$d/admin.key" -subj "/O=system:masters/CN=ks-admin" \
    -out "$d/admin.csr" 2>/dev/null
  openssl x509 -req -in "$d/admin.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 3650 \
    -extfile "$d/openssl.cnf" -extensions v3_client -out "$d/admin.crt" 2>/dev/null
  chmod 600 "$d"/*.key
}

write_kubeconfig() {  # <workdir> <server url>
  cat >"$1/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: ks-test
  cluster:
    server: $2
    certificate-authority: $1/pki/ca.crt
users:
- name: ks-admin
  user:
    client-certificate: $1/pki/admin.crt
    client-key: $1/pki/admin.key
contexts:
- name: ks-test
  context:
    cluster: ks-test
    user: ks-admin
current-context: ks-test
KC
}

# Rewritten after every process start, so that `down` (or the watcher) can always find what is running.
write_env() {  # <workdir>; uses the KS_* variables of the running control plane
  local w=$1
  cat >"$w/env.tmp" <<ENV
export KS_CONTROL_PLANE_WORKDIR='$w'
export KS_CONTROL_PLANE_BIN='${KS_CONTROL_PLANE_BIN:-}'
export KUBECONFIG='$w/kubeconfig'
export KS_APISERVER_URL='https://127.0.0.1:${KS_APISERVER_PORT:-}'
export KS_APISERVER_PORT='${KS_APISERVER_PORT:-}'
export KS_APISERVER_PID='${KS_APISERVER_PID:-}'
export KS_APISERVER_LOG='$w/kube-apiserver.log'
export KS_ETCD_URL='http://127.0.0.1:${KS_ETCD_PORT:-}'
export KS_ETCD_PORT='${KS_ETCD_PORT:-}'
export KS_ETCD_PEER_PORT='${KS_ETCD_PEER_PORT:-}'
export KS_ETCD_PID='${KS_ETCD_PID:-}'
export KS_ETCD_LOG='$w/etcd.log'
export KS_CA_FILE='$w/pki/ca.crt'
export KS_CA_KEY_FILE='$w/pki/ca.key'
export KS_CLIENT_CERT_FILE='$w/pki/admin.crt'
export KS_CLIENT_KEY_FILE='$w/pki/admin.key'
export KS_SERVICE_ACCOUNT_KEY_FILE='$w/pki/sa.key'
export KS_SERVICE_ACCOUNT_PUB_FILE='$w/pki/sa.pub'
export KS_CONTROLLER_MANAGER_PORT='${KS_CONTROLLER_MANAGER_PORT:-}'
export KS_CONTROLLER_MANAGER_PID='${KS_CONTROLLER_MANAGER_PID:-}'
export KS_CONTROLLER_MANAGER_CONTROLLERS='${KS_CONTROLLER_MANAGER_CONTROLLERS:-}'
export KS_CONTROLLER_MANAGER_LOG='$w/kube-controller-manager.log'
export KS_WATCHER_PID='${KS_WATCHER_PID:-}'
ENV
  mv "$w/env.tmp" "$w/env"
}

# ----------------------------------------------------------------------------------------------- processes

# Starts etcd on fresh ports (retrying when a port was taken meanwhile); sets KS_ETCD_PORT/_PEER_PORT/_PID.
start_etcd() {
  local w=$1 attempt i
  for ((attempt = 1; attempt <= 5; attempt++)); do
    KS_ETCD_PORT=$(free_port)
    KS_ETCD_PEER_PORT=$(free_port)
    [[ "$KS_ETCD_PORT" != "$KS_ETCD_PEER_PORT" ]] || continue
    local c="http://127.0.0.1:$KS_ETCD_PORT" p="http://127.0.0.1:$KS_ETCD_PEER_PORT"
    setsid "$KS_CONTROL_PLANE_BIN/etcd" --name ks-test --data-dir "$w/etcd-data" \
      --listen-client-urls "$c" --advertise-client-urls "$c" \
      --listen-peer-urls "$p" --initial-advertise-peer-urls "$p" --initial-cluster "ks-test=$p" \
      --initial-cluster-state new --initial-cluster-token "ks-test-$$" \
      --unsafe-no-fsync --log-level warn --logger zap --log-outputs stderr \
      </dev/null >>"$w/etcd.log" 2>&1 &
    KS_ETCD_PID=$!
    write_env "$w"
    for ((i = 0; i < 200; i++)); do
      if curl -fsS --max-time 1 "$c/health" 2>/dev/null | grep -q '"health":"true"'; then
        log "etcd ready at $c (pid $KS_ETCD_PID)"
        return 0
      fi
      kill -0 "$KS_ETCD_PID" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$KS_ETCD_PID" 2>/dev/null; then
      kill -KILL "$KS_ETCD_PID" 2>/dev/null || true
      log_tail "$w/etcd.log" "etcd log"
      die "etcd did not become healthy at $c within 20 s"
    fi
    if grep -q 'address already in use' "$w/etcd.log"; then
      log "etcd port taken meanwhile; retrying with other ports"
      rm -rf "$w/etcd-data"
      : >"$w/etcd.log"
      continue
    fi
    log_tail "$w/etcd.log" "etcd log"
    die "etcd exited during startup"
  done
  die "etcd could not bind free ports after 5 attempts"
}

apiserver_args() {  # <workdir> <port> -> the flag list, one per line
  local w=$1 port=$2
  cat <<ARGS
--etcd-servers=http://127.0.0.1:$KS_ETCD_PORT
--bind-address=127.0.0.1
--advertise-address=127.0.0.1
--endpoint-reconciler-type=none
--secure-port=$port
--cert-dir=$w/pki
--tls-cert-file=$w/pki/apiserver.crt
--tls-private-key-file=$w/pki/apiserver.key
--client-ca-file=$w/pki/ca.crt
--service-account-issuer=https://kubernetes.default.svc.cluster.local
--service-account-key-file=$w/pki/sa.pub
--service-account-signing-key-file=$w/pki/sa.key
--service-cluster-ip-range=10.0.0.0/24
--authorization-mode=Node,RBAC
--disable-admission-plugins=ServiceAccount,TaintNodesByCondition
--enable-priority-and-fairness=true
--profiling=false
--v=${KS_APISERVER_VERBOSITY:-1}
ARGS
  # Extra flags for a test (e.g. --watch-cache=false), whitespace separated; kept across restarts.
  local extra
  for extra in ${KS_APISERVER_EXTRA_FLAGS:-}; do
    printf '%s\n' "$extra"
  done
}

readyz() {  # <workdir> <port>
  curl -fsS --max-time 2 --cacert "$1/pki/ca.crt" --cert "$1/pki/admin.crt" --key "$1/pki/admin.key" \
    "https://127.0.0.1:$2/readyz" >/dev/null 2>&1
}

# Starts kube-apiserver with the flags in <workdir>/apiserver.args (written on first start) and waits for
# /readyz; sets KS_APISERVER_PORT and KS_APISERVER_PID.
launch_apiserver() {  # <workdir>
  local w=$1 i
  local -a args
  mapfile -t args <"$w/apiserver.args"
  printf '==== kube-apiserver start %s\n' "$(date -u +%FT%TZ)" >>"$w/kube-apiserver.log"
  setsid "$KS_CONTROL_PLANE_BIN/kube-apiserver" "${args[@]}" </dev/null >>"$w/kube-apiserver.log" 2>&1 &
  KS_APISERVER_PID=$!
  write_env "$w"
  local deadline=$((SECONDS + READY_TIMEOUT))
  while ((SECONDS < deadline)); do
    if readyz "$w" "$KS_APISERVER_PORT"; then
      log "kube-apiserver ready at https://127.0.0.1:$KS_APISERVER_PORT (pid $KS_APISERVER_PID)"
      return 0
    fi
    kill -0 "$KS_APISERVER_PID" 2>/dev/null || return 1
    sleep 0.2
  done
  kill -KILL "$KS_APISERVER_PID" 2>/dev/null || true
  log_tail "$w/kube-apiserver.log" "kube-apiserver log"
  die "kube-apiserver not ready within ${READY_TIMEOUT} s (KS_CONTROL_PLANE_READY_TIMEOUT)"
}

start_apiserver_fresh() {
  local w=$1 attempt
  for ((attempt = 1; attempt <= 5; attempt++)); do
    KS_APISERVER_PORT=$(free_port)
    apiserver_args "$w" "$KS_APISERVER_PORT" >"$w/apiserver.args"
    launch_apiserver "$w" && return 0
    if tail -n 20 "$w/kube-apiserver.log" | grep -q 'address already in use'; then
      log "kube-apiserver port taken meanwhile; retrying with another port"
      continue
    fi
    log_tail "$w/kube-apiserver.log" "kube-apiserver log"
    die "kube-apiserver exited during startup"
  done
  die "kube-apiserver could not bind a free port after 5 attempts"
}

# kube-controller-manager with only the given controllers, against the admin kubeconfig (system:masters, so
# every controller's RBAC holds without --use-service-account-credentials). Its own endpoints trust client
# certs of our CA (the admin cert can read /metrics) without looking the CAs up in the cluster: the
# apiserver has no request-header CA, and that lookup logs an error every few seconds. /healthz is always
# allowed. No cloud provider (the default ""), no leader election (one instance; taking the lease would
# delay each start by the lease duration after a restart), serving cert generated in memory. The PV binder
# resyncs every second, as in upstream's test/integration/volume: a claim synced before its volume reached
# the binder's cache is otherwise bound only at the next resync, 15 s later by default.
controller_manager_args() {  # <workdir> <port> <controllers>
  local w=$1 port=$2 controllers=$3
  cat <<ARGS
--kubeconfig=$w/kubeconfig
--authentication-kubeconfig=$w/kubeconfig
--authentication-skip-lookup=true
--client-ca-file=$w/pki/ca.crt
--authorization-kubeconfig=$w/kubeconfig
--bind-address=127.0.0.1
--secure-port=$port
--controllers=$controllers
--leader-elect=false
--use-service-account-credentials=false
--pvclaimbinder-sync-period=1s
--profiling=false
--v=2
ARGS
}

# /healthz is ok as soon as it serves; each controller adds its own check once started, so also wait for
# every named one (not "*" or "-name") to be listed: then they run (each waits for its informers itself).
controller_manager_healthy() {  # <port> <controllers>; a self-signed in-memory cert, hence -k (loopback)
  local body c
  local -a names
  body=$(curl -fksS --max-time 2 "https://127.0.0.1:$1/healthz?verbose" 2>/dev/null) || return 1
  grep -qxF 'healthz check passed' <<<"$body" || return 1
  IFS=, read -ra names <<<"$2"
  for c in "${names[@]}"; do
    [[ "$c" == '*' || "$c" == -* ]] && continue
    grep -qxF "[+]$c ok" <<<"$body" || return 1
  done
}

# Starts kube-controller-manager on a fresh port (retrying when the port was taken meanwhile) and waits
# until /healthz lists the controllers; sets KS_CONTROLLER_MANAGER_PORT and KS_CONTROLLER_MANAGER_PID.
start_controller_manager() {  # <workdir> <controllers>
  local w=$1 controllers=$2 attempt
  local log="$w/kube-controller-manager.log"
  for ((attempt = 1; attempt <= 5; attempt++)); do
    KS_CONTROLLER_MANAGER_PORT=$(free_port)
    local -a args
    mapfile -t args < <(controller_manager_args "$w" "$KS_CONTROLLER_MANAGER_PORT" "$controllers")
    printf '==== kube-controller-manager start %s\n' "$(date -u +%FT%TZ)" >>"$log"
    setsid "$KS_CONTROL_PLANE_BIN/kube-controller-manager" "${args[@]}" </dev/null >>"$log" 2>&1 &
    KS_CONTROLLER_MANAGER_PID=$!
    KS_CONTROLLER_MANAGER_CONTROLLERS=$controllers
    write_env "$w"
    local deadline=$((SECONDS + READY_TIMEOUT))
    while ((SECONDS < deadline)); do
      if controller_manager_healthy "$KS_CONTROLLER_MANAGER_PORT" "$controllers"; then
        log "kube-controller-manager healthy at https://127.0.0.1:$KS_CONTROLLER_MANAGER_PORT" \
          "(pid $KS_CONTROLLER_MANAGER_PID, controllers $controllers)"
        return 0
      fi
      pid_running "$KS_CONTROLLER_MANAGER_PID" || break
      # The owner's watcher only waits for `up`; do not leave a process behind its `down`.
      local owner=${KS_CONTROL_PLANE_OWNER_PID:-}
      if [[ -n "$owner" ]] && ! kill -0 "$owner" 2>/dev/null; then
        die "owner $owner is gone"
      fi
      sleep 0.2
    done
    if pid_running "$KS_CONTROLLER_MANAGER_PID"; then
      log_tail "$log" "kube-controller-manager log"
      local url="https://127.0.0.1:$KS_CONTROLLER_MANAGER_PORT/healthz?verbose"
      log "its /healthz?verbose: $(curl -ksS --max-time 2 "$url" 2>&1 | tr '\n' ' ')"
      die "kube-controller-manager not healthy with controllers $controllers within ${READY_TIMEOUT} s" \
        "(KS_CONTROL_PLANE_READY_TIMEOUT; a controller skipped for lack of flags never shows up)"
    fi
    if tail -n 20 "$log" | grep -q 'address already in use'; then
      log "kube-controller-manager port taken meanwhile; retrying with another port"
      continue
    fi
    log_tail "$log" "kube-controller-manager log"
    die "kube-controller-manager exited during startup"
  done
  die "kube-controller-manager could not bind a free port after 5 attempts"
}

# -------------------------------------------------------------------------------------------------- commands

cmd_up() {
  local w
  w=$(abs_workdir "${1:-}")
  if [[ -f "$w/env" ]]; then
    load_env "$w"
    if pid_is_ours "$KS_APISERVER_PID" "$w" || pid_is_ours "$KS_ETCD_PID" "$w" ||
      pid_is_ours "${KS_CONTROLLER_MANAGER_PID:-}" "$w"; then
      die "a control plane is already running in $w (run down first)"
    fi
  fi
  local start=$SECONDS
  KS_APISERVER_PORT='' KS_APISERVER_PID='' KS_ETCD_PORT='' KS_ETCD_PEER_PORT='' KS_ETCD_PID='' KS_WATCHER_PID=''
  KS_CONTROLLER_MANAGER_PORT='' KS_CONTROLLER_MANAGER_PID='' KS_CONTROLLER_MANAGER_CONTROLLERS=''
  # If the caller dies while we start, finish anyway (no SIGPIPE on our stderr): the watcher cleans up.
  trap '' PIPE
  if [[ -n "${KS_CONTROL_PLANE_OWNER_PID:-}" ]]; then
    # Tear everything down when the owning process dies without calling down (crash, kill -9, timeout),
    # including while this `up` is still running.
    setsid "$0" __watch "$w" "$KS_CONTROL_PLANE_OWNER_PID" "$$" </dev/null >>"$w/watcher.log" 2>&1 &
    KS_WATCHER_PID=$!
  fi
  if [[ -z "${KS_CONTROL_PLANE_BIN:-}" ]]; then
    KS_CONTROL_PLANE_BIN=$(cmd_build)
  fi
  [[ -x "$KS_CONTROL_PLANE_BIN/etcd" && -x "$KS_CONTROL_PLANE_BIN/kube-apiserver" ]] ||
    die "KS_CONTROL_PLANE_BIN=$KS_CONTROL_PLANE_BIN has no etcd and kube-apiserver (run: $0 build)"
  command -v curl >/dev/null 2>&1 || die "curl is required"
  command -v openssl >/dev/null 2>&1 || die "openssl is required"
  rm -rf "$w/etcd-data" "$w/pki"
  write_env "$w"
  : >"$w/etcd.log"
  : >"$w/kube-apiserver.log"
  rm -f "$w/kube-controller-manager.log"
  gen_pki "$w/pki"
  # From here on a failure must not leave processes behind.
  trap 'stop_pid "${KS_APISERVER_PID:-}" "$w" kube-apiserver; stop_pid "${KS_ETCD_PID:-}" "$w" etcd' EXIT
  start_etcd "$w"
  start_apiserver_fresh "$w"
  trap - EXIT
  write_kubeconfig "$w" "https://127.0.0.1:$KS_APISERVER_PORT"
  write_env "$w"
  log "control plane up in $((SECONDS - start)) s; source $w/env"
}

cmd_down() {
  local w
  w=$(abs_workdir "${1:-}")
  if [[ -f "$w/env" ]]; then
    load_env "$w"
    if [[ -n "${KS_WATCHER_PID:-}" && "$KS_WATCHER_PID" != "${KS_SELF_WATCHER:-}" ]]; then
      if pid_is_ours "$KS_WATCHER_PID" "$w"; then
        kill -TERM "$KS_WATCHER_PID" 2>/dev/null || true
      fi
    fi
    # Clients first: a controller manager without its apiserver only logs connection errors until killed.
    stop_pid "${KS_CONTROLLER_MANAGER_PID:-}" "$w" kube-controller-manager
    stop_pid "${KS_APISERVER_PID:-}" "$w" kube-apiserver
    stop_pid "${KS_ETCD_PID:-}" "$w" etcd
  fi
  rm -rf "$w/etcd-data" "$w/pki" "$w/env" "$w/kubeconfig" "$w/apiserver.args"
  if [[ "${KS_CONTROL_PLANE_KEEP_LOGS:-0}" == 1 ]]; then
    log "logs kept in $w"
  else
    rm -f "$w/etcd.log" "$w/kube-apiserver.log" "$w/kube-controller-manager.log" "$w/watcher.log"
    rmdir "$w" 2>/dev/null || true
  fi
}

cmd_restart_apiserver() {
  local w
  w=$(abs_workdir "${1:-}")
  load_env "$w"
  pid_is_ours "$KS_ETCD_PID" "$w" || die "etcd of $w is not running"
  stop_pid "$KS_APISERVER_PID" "$w" kube-apiserver
  if ! relaunch_apiserver "$w"; then
    log_tail "$w/kube-apiserver.log" "kube-apiserver log"
    die "kube-apiserver exited during restart"
  fi
  write_env "$w"
}

cmd_kill_apiserver() {
  local w i
  w=$(abs_workdir "${1:-}")
  load_env "$w"
  pid_is_ours "${KS_APISERVER_PID:-}" "$w" || die "kube-apiserver of $w is not running"
  kill -KILL "$KS_APISERVER_PID" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    pid_running "$KS_APISERVER_PID" || break
    sleep 0.05
  done
  pid_running "$KS_APISERVER_PID" && die "kube-apiserver ($KS_APISERVER_PID) still alive after KILL"
  wait_port_released "$KS_APISERVER_PORT"
  log "kube-apiserver ($KS_APISERVER_PID) killed"
  KS_APISERVER_PID=''
  write_env "$w"
}

cmd_start_apiserver() {
  local w
  w=$(abs_workdir "${1:-}")
  load_env "$w"
  pid_is_ours "$KS_ETCD_PID" "$w" || die "etcd of $w is not running"
  if pid_is_ours "${KS_APISERVER_PID:-}" "$w"; then
    die "kube-apiserver already runs in $w (pid $KS_APISERVER_PID; kill-apiserver first)"
  fi
  if ! relaunch_apiserver "$w"; then
    log_tail "$w/kube-apiserver.log" "kube-apiserver log"
    die "kube-apiserver exited during start"
  fi
  write_env "$w"
}

cmd_compact() {
  local w
  w=$(abs_workdir "${1:-}")
  load_env "$w"
  local resp rev
  # etcd's gRPC gateway (on by default on the client URL): a range reply's header carries the revision.
  resp=$(curl -fsS --max-time 5 -X POST "$KS_ETCD_URL/v3/kv/range" -d '{"key":"AA=="}') ||
    die "etcd range request to $KS_ETCD_URL failed"
  rev=$(printf '%s' "$resp" | sed -n 's/.*"revision":"\([0-9]*\)".*/\1/p')
  [[ -n "$rev" ]] || die "no revision in etcd reply: $resp"
  curl -fsS --max-time 30 -X POST "$KS_ETCD_URL/v3/kv/compaction" \
    -d "{\"revision\":\"$rev\",\"physical\":true}" >/dev/null ||
    die "etcd compaction at revision $rev failed"
  log "etcd compacted at revision $rev"
  printf '%s\n' "$rev"
}

cmd_start_controller_manager() {
  local w controllers=${2:-}
  w=$(abs_workdir "${1:-}")
  load_env "$w"
  [[ "$controllers" =~ ^[-a-z0-9*]+(,[-a-z0-9*]+)*$ ]] ||
    die "start-controller-manager: <controllers> must be a comma-separated list of controller names," \
      "got '$controllers'"
  pid_is_ours "$KS_APISERVER_PID" "$w" || die "kube-apiserver of $w is not running"
  if pid_is_ours "${KS_CONTROLLER_MANAGER_PID:-}" "$w"; then
    die "kube-controller-manager already runs in $w (pid $KS_CONTROLLER_MANAGER_PID;" \
      "stop-controller-manager first)"
  fi
  [[ -x "$KS_CONTROL_PLANE_BIN/kube-controller-manager" ]] ||
    die "$KS_CONTROL_PLANE_BIN has no kube-controller-manager (run: $0 build)"
  trap '' PIPE
  # A failed start must not leave the process behind.
  trap 'stop_pid "${KS_CONTROLLER_MANAGER_PID:-}" "$w" kube-controller-manager' EXIT
  start_controller_manager "$w" "$controllers"
  trap - EXIT
}

cmd_stop_controller_manager() {
  local w
  w=$(abs_workdir "${1:-}")
  load_env "$w"
  stop_pid "${KS_CONTROLLER_MANAGER_PID:-}" "$w" kube-controller-manager
  KS_CONTROLLER_MANAGER_PORT='' KS_CONTROLLER_MANAGER_PID='' KS_CONTROLLER_MANAGER_CONTROLLERS=''
  write_env "$w"
}

cmd_watch() {  # internal: <workdir> <owner pid> <pid of the up command>
  local w=$1 owner=$2 up=$3
  while kill -0 "$owner" 2>/dev/null; do
    sleep 1
  done
  while kill -0 "$up" 2>/dev/null; do  # let a running `up` finish (or fail) first
    sleep 0.2
  done
  [[ -f "$w/env" ]] || exit 0
  log "owner $owner is gone; tearing down $w"
  KS_SELF_WATCHER=$$ cmd_down "$w"
}

case "${1:-}" in
  build) cmd_build ;;
  up) cmd_up "${2:-}" ;;
  down) cmd_down "${2:-}" ;;
  restart-apiserver) cmd_restart_apiserver "${2:-}" ;;
  kill-apiserver) cmd_kill_apiserver "${2:-}" ;;
  start-apiserver) cmd_start_apiserver "${2:-}" ;;
  compact) cmd_compact "${2:-}" ;;
  start-controller-manager) cmd_start_controller_manager "${2:-}" "${3:-}" ;;
  stop-controller-manager) cmd_stop_controller_manager "${2:-}" ;;
  go-module) write_apiserver_module "${2:?usage: $0 go-module <dir>}" && printf '%s\n' "$KUBE_VERSION" ;;
  __watch) cmd_watch "$2" "$3" "$4" ;;
  *) die "usage: $0 build | up <workdir> | down <workdir> | restart-apiserver <workdir>" \
    "| kill-apiserver <workdir> | start-apiserver <workdir> | compact <workdir>" \
    "| start-controller-manager <workdir> <controllers> | stop-controller-manager <workdir>" \
    "| go-module <dir>" ;;
esac
