#!/usr/bin/env bash
# Builds (or reuses) the binaries parity mode runs: kube-apiserver from the
# Go module proxy, and etcd from Debian's etcd-server package. The result is
# cached under .cache/parity/bin (git-ignored), so later runs take seconds.
#
# kube-apiserver cannot be `go install`ed (k8s.io/kubernetes' go.mod has
# replace directives), so a throw-away wrapper module requires
# k8s.io/kubernetes and replaces each of its staging modules with the
# published version of the same release. Cold build on 2 cores: about 6 to
# 12 minutes, 3 GB of memory, 5 GB of disk.
#
# Usage: hack/parity-binaries.sh   (prints the bin directory)
#
# Checked by hand on 2026-11-22: the build took 4m20s here; the server came
# up on 127.0.0.1 in about 2 s (flags: --etcd-servers, --bind-address,
# --secure-port, --cert-dir, --service-account-key-file,
# --service-account-signing-key-file, --service-account-issuer,
# --authorization-mode=AlwaysAllow, --token-auth-file,
# --endpoint-reconciler-type=none, --service-cluster-ip-range), accepted
# controller/artifacts/crd.yaml and example-foo.yaml, rejected replicas: 50 by
# the CRD's schema, and foo-controller created the Deployment and recorded
# the Synced event against it. Parity mode (issue 7) is to build on this.
set -o errexit -o nounset -o pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.37.1}"   # v1.37.2's source is not served by the proxy here
STAGING_VERSION="v0${KUBE_VERSION#v1}"    # v1.37.1 -> v0.37.1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cache="${root}/.cache/parity"
bin="${cache}/bin"
mkdir -p "${bin}"

if [ ! -x "${bin}/kube-apiserver" ] || [ "$("${bin}/kube-apiserver" --version 2>/dev/null)" != "Kubernetes ${KUBE_VERSION}" ]; then
  wrapper="${cache}/apiserver-build"
  rm -rf "${wrapper}"
  mkdir -p "${wrapper}"
  gomod="$(cd "${wrapper}" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
  {
    echo "module ctrltest.dev/parity-apiserver"
    echo
    echo "go $(go env GOVERSION | sed 's/^go//')"
    echo
    echo "require k8s.io/kubernetes ${KUBE_VERSION}"
    echo
    echo "replace ("
    # Every staging module kubernetes replaces, at the published version;
    # sample-controller and sample-cli-plugin are not published.
    grep -E '=> \./staging/src/' "${gomod}" | awk '{print $1}' \
      | grep -v -e '^k8s.io/sample-controller$' -e '^k8s.io/sample-cli-plugin$' \
      | while read -r m; do echo "	${m} => ${m} ${STAGING_VERSION}"; done
    echo ")"
  } >"${wrapper}/go.mod"
  (
    cd "${wrapper}"
    GOFLAGS=-mod=mod go build -o "${bin}/kube-apiserver" \
      -ldflags "-X k8s.io/component-base/version.gitVersion=${KUBE_VERSION}" \
      k8s.io/kubernetes/cmd/kube-apiserver
  )
fi

if [ ! -x "${bin}/etcd" ]; then
  if ! command -v etcd >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server >/dev/null
    else
      echo "parity-binaries: etcd is missing; install Debian's etcd-server" >&2
      exit 1
    fi
  fi
  ln -sf "$(command -v etcd)" "${bin}/etcd"
fi

echo "${bin}"
