#!/usr/bin/env bash
# A real etcd + kube-apiserver on loopback for the integration tests.
#
#   controlplane.sh build                      build (or reuse) the pinned binaries; prints ONLY the bin dir
#   controlplane.sh up <workdir>               certs, etcd, kube-apiserver; writes <workdir>/kubeconfig, <workdir>/env
#   controlplane.sh down <workdir>             stop both (TERM, then KILL) and remove <workdir>
#   controlplane.sh restart-apiserver <workdir>  restart kube-apiserver only (same port and flags), wait for /readyz
#   controlplane.sh compact <workdir>          compact etcd at its current revision (watches then get 410 Gone)
#
# Binaries are built from Go modules through the configured module proxy (never downloaded as binaries) and
# cached outside the repo in ${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/controlplane/<k8s>_<etcd>/bin.
# KS_CONTROL_PLANE_BIN (a bin dir from `build`) skips the build step in `up`.
# Everything listens on 127.0.0.1 only. Logs go to stderr; `build` prints only the bin dir on stdout.
set -euo pipefail

# Pinned versions. KUBE_VERSION: newest v1.34 patch on the module proxy (`go list -m -versions
# k8s.io/kubernetes`). ETCD_VERSION: the etcd kubeadm v1.34.4 deploys (cmd/kubeadm/app/constants:
# DefaultEtcdVersion = "3.6.5-0"); kube-apiserver v1.34.4 itself links the v3.6.4 client.
readonly KUBE_VERSION=v1.34.4
readonly STAGING_VERSION=v0.34.4
readonly ETCD_VERSION=v3.6.5

# The staging modules that k8s.io/kubernetes@v1.34.4's go.mod requires at v0.0.0 and replaces with
# ./staging/src/... paths (its replace block also lists sample-cli-plugin and sample-controller, which it does
# not require and which are not published at v0.34.4, so they are left out).
readonly STAGING_MODULES=(
  api apiextensions-apiserver apimachinery apiserver cli-runtime client-go cloud-provider cluster-bootstrap
  code-generator component-base component-helpers controller-manager cri-api cri-client csi-translation-lib
  dynamic-resource-allocation endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy
  kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission sample-apiserver
)

readonly CACHE_ROOT="${KS_CACHE_DIR:-$HOME/.cache/kube-scheduler-cpp}/controlplane"
readonly CACHE_KEY="${KUBE_VERSION}_${ETCD_VERSION}"
readonly READY_TIMEOUT="${KS_CONTROL_PLANE_READY_TIMEOUT:-90}"

log() { printf 'controlplane: %s\n' "$*" >&2; }
die() { printf 'controlplane: error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------------- build

bin_dir_complete() {
  [[ -f "$1/.complete" && -x "$1/kube-apiserver" && -x "$1/etcd" ]]
}

write_apiserver_module() {
  local dir=$1 m
  mkdir -p "$dir"
  {
    printf 'module ks.local/controlplane/apiserver\n\ngo 1.24.0\n\n'
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
  # go.etcd.io/etcd/server/v3 has a main package (the etcd binary) at its module root in v3.5 and v3.6. Its
  # own go.mod replaces its sibling modules with ../ paths (ignored for dependencies), so pin them here.
  cat >"$dir/go.mod" <<EOF
module ks.local/controlplane/etcd

go 1.23.0

require (
	go.etcd.io/etcd/server/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/api/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/client/pkg/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/client/v3 ${ETCD_VERSION}
	go.etcd.io/etcd/pkg/v3 ${ETCD_VERSION}
)
EOF
}

go_build() {  # <module dir> <output> <package> [ldflags]
  local dir=$1 out=$2 pkg=$3 ldflags=${4:-}
  log "go build $pkg (in $dir)"
  local start=$SECONDS
  if ! (cd "$dir" && GOWORK=off GOFLAGS=-mod=mod CGO_ENABLED=0 nice -n 10 \
          go build -trimpath -ldflags "-s -w $ldflags" -o "$out" "$pkg" >&2); then
    die "go build $pkg failed (module $dir); see the errors above"
  fi
  log "built $(basename "$out") in $((SECONDS - start)) s"
}

cmd_build() {
  local key_dir="$CACHE_ROOT/$CACHE_KEY"
  local bin="$key_dir/bin"
  if bin_dir_complete "$bin"; then
    printf '%s\n' "$bin"
    return 0
  fi
  command -v go >/dev/null 2>&1 ||
    die "go is not installed (needed once to build kube-apiserver $KUBE_VERSION and etcd $ETCD_VERSION)"
  mkdir -p "$key_dir"
  exec 9>"$key_dir/.lock"
  log "waiting for the build lock $key_dir/.lock"
  flock 9
  if bin_dir_complete "$bin"; then  # someone else built it while we waited
    exec 9>&-
    printf '%s\n' "$bin"
    return 0
  fi
  log "building kube-apiserver $KUBE_VERSION and etcd $ETCD_VERSION with $(go version) (cold: many minutes)"
  local tmp="$key_dir/bin.tmp"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  write_apiserver_module "$key_dir/src/apiserver"
  write_etcd_module "$key_dir/src/etcd"
  local v=k8s.io/component-base/version minor=${KUBE_VERSION#v1.}
  minor=${minor%%.*}
  go_build "$key_dir/src/etcd" "$tmp/etcd" go.etcd.io/etcd/server/v3
  go_build "$key_dir/src/apiserver" "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver \
    "-X $v.gitVersion=$KUBE_VERSION -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean \
-X $v.buildDate=1970-01-01T00:00:00Z"
  printf 'kube-apiserver %s\netcd %s\n' "$KUBE_VERSION" "$ETCD_VERSION" >"$tmp/.complete"
  rm -rf "$bin"
  mv "$tmp" "$bin"
  exec 9>&-
  log "binaries in $bin"
  printf '%s\n' "$bin"
}

case "${1:-}" in
  build) cmd_build ;;
  *) die "usage: $0 build|up <dir>|down <dir>|restart-apiserver <dir>|compact <dir>" ;;
esac
