#!/usr/bin/env bash
# Build a Kubernetes control plane (kube-apiserver, kube-controller-manager,
# kube-scheduler), etcd and kwok from Go modules into a cache outside the repo.
#
#   tests/cluster/build.sh            print the bin directory, building on a miss
#
# The consumer modules are generated here, not committed: k8s.io/kubernetes
# requires its 31 staging modules at v0.0.0, so we derive one `replace` per
# such module from its own go.mod (see the k8s.io/kubernetes README on using it
# as a library). The cache key covers the versions and the resolved go.sum.
set -euo pipefail
K8S_VERSION=${K8S_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.7.0}
KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
CACHE=${DRACTL_CLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dractl-test-cluster}
export GOFLAGS=-mod=mod GOTOOLCHAIN=local CGO_ENABLED=0
staging=${K8S_VERSION/v1./v0.}

log() { echo "build: $*" >&2; }
# kwok's stages: standalone kwok has none built in; take the module's own (fast node and pod life cycle).
stages() {
  local mod out=$1/stages.yaml
  mod=$(GOFLAGS= go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  : > "$out.tmp"
  for f in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml \
           pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    { echo "---"; cat "$mod/kustomize/stage/$f"; } >> "$out.tmp"
  done
  mv "$out.tmp" "$out"
}
mkdir -p "$CACHE/src"
# One build at a time: suites run side by side (or several control planes starting at once) wait for the
# first build instead of compiling Kubernetes twice on the same cache.
exec 9>"$CACHE/.build.lock"
flock 9
# 1. consumer module for k8s.io/kubernetes
kdir="$CACHE/src/k8s-$K8S_VERSION"
if [ ! -f "$kdir/go.sum" ]; then
  rm -rf "$kdir" && mkdir -p "$kdir"
  modfile=$(cd "$kdir" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  goline=$(grep -m1 '^go ' "$modfile")
  {
    echo "module dractl.test/controlplane"
    echo
    echo "$goline"
    grep -m1 '^godebug ' "$modfile" || true
    echo
    echo "require k8s.io/kubernetes $K8S_VERSION"
    echo
    awk '$2 == "v0.0.0" && $1 ~ /^k8s\.io\// {print "replace " $1 " => " $1 " '"$staging"'"}' "$modfile"
  } > "$kdir/go.mod"
  cat > "$kdir/tools.go" <<'GO'
//go:build tools

package controlplane

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
GO
  log "resolving k8s.io/kubernetes@$K8S_VERSION ($(grep -c '^replace' "$kdir/go.mod") staging replaces)"
  (cd "$kdir" && go mod tidy -e >&2 2>/dev/null || true)
  (cd "$kdir" && go get k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler >&2)
fi
# 2. consumer module for etcd (its own go.mod carries replaces; we use the released module)
edir="$CACHE/src/etcd-$ETCD_VERSION"
if [ ! -f "$edir/go.sum" ]; then
  rm -rf "$edir" && mkdir -p "$edir"
  printf 'module dractl.test/etcd\n\ngo 1.26.0\n' > "$edir/go.mod"
  (cd "$edir" && go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2)
fi
key=$( (echo "$K8S_VERSION $ETCD_VERSION $KWOK_VERSION"; cat "$kdir/go.sum" "$edir/go.sum") | sha256sum | cut -c1-16)
bin="$CACHE/bin-$key"
if [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-controller-manager" ] && [ -x "$bin/kube-scheduler" ] \
   && [ -x "$bin/etcd" ] && [ -x "$bin/kwok" ]; then
  stages "$bin"; echo "$bin"; exit 0
fi
mkdir -p "$bin.tmp"
pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=$(echo "$K8S_VERSION" | cut -d. -f1 | tr -d v) -X $pkg.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)"
start=$(date +%s)
log "building etcd $ETCD_VERSION"
(cd "$edir" && go build -trimpath -ldflags "-s -w" -o "$bin.tmp/etcd" go.etcd.io/etcd/server/v3)
log "building kwok $KWOK_VERSION"
GOBIN="$bin.tmp" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" >&2
for c in kube-apiserver kube-controller-manager kube-scheduler; do
  log "building $c $K8S_VERSION"
  (cd "$kdir" && go build -trimpath -ldflags "$ldflags" -o "$bin.tmp/$c" "k8s.io/kubernetes/cmd/$c")
done
stages "$bin.tmp"
rm -rf "$bin" && mv "$bin.tmp" "$bin"
log "built in $(( $(date +%s) - start )) s"
echo "$bin"
