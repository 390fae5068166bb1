#!/usr/bin/env bash
# Builds (or reuses) the binaries parity mode runs, kube-apiserver, etcd and
# kube-controller-manager, from the Go module proxy. Everything stays under the cache directory
# (.cache/parity, git-ignored; PARITY_CACHE chooses another): nothing is
# installed on the system, and later runs take seconds.
#
# kube-apiserver cannot be `go install`ed (k8s.io/kubernetes' go.mod has
# replace directives), so a throw-away wrapper module requires
# k8s.io/kubernetes and replaces each of its staging modules with the
# published version of the same release. Cold build on 2 cores: about 6 to
# 12 minutes, 3 GB of memory, 5 GB of disk; kube-controller-manager, from the
# same module and build cache, adds a few minutes (12 min wall with the
# machine loaded by other builds; 3m40s of CPU).
#
# etcd is built the same way (go.etcd.io/etcd/server/v3's go.mod has replace
# directives too, which a wrapper module ignores): ETCD_VERSION, by default
# the release Kubernetes v1.37.1 tests with (its hack/lib/etcd.sh).
# About a minute on 2 cores.
#
# Usage: hack/parity-binaries.sh   (prints the bin directory)
#        PARITY_CACHE=/tmp/p hack/parity-binaries.sh   (builds into /tmp/p/bin)
#
# A binary is rebuilt when its --version is not the one asked for (an etcd
# linked to a system one by earlier versions of this script is replaced).
#
# Checked by hand on 2026-11-22: the kube-apiserver build took 4m20s here;
# the server came up on 127.0.0.1 in about 2 s (flags: --etcd-servers,
# --bind-address, --secure-port, --cert-dir, --service-account-key-file,
# --service-account-signing-key-file, --service-account-issuer,
# --authorization-mode=AlwaysAllow, --token-auth-file,
# --endpoint-reconciler-type=none, --service-cluster-ip-range), accepted
# controller/artifacts/crd.yaml and example-foo.yaml, rejected replicas: 50 by
# the CRD's schema, and foo-controller created the Deployment and recorded
# the Synced event against it. Parity mode (issue 7) is to build on this.
# etcd v3.7.0 from the module proxy (issue 13): built from scratch in 47 s.
set -o errexit -o nounset -o pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.37.1}"   # v1.37.2's source is not served by the proxy here
STAGING_VERSION="v0${KUBE_VERSION#v1}"    # v1.37.1 -> v0.37.1
ETCD_VERSION="${ETCD_VERSION:-v3.7.0}"    # k8s.io/kubernetes v1.37.1's hack/lib/etcd.sh
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cache="${PARITY_CACHE:-${root}/.cache/parity}"
mkdir -p "${cache}"
cache="$(cd "${cache}" && pwd -P)"
go_version="$(go env GOVERSION | sed 's/^go//')"
bin="${cache}/bin"
mkdir -p "${bin}"

# kube_wrapper: the throw-away module that builds k8s.io/kubernetes' main
# packages (made once per KUBE_VERSION).
kube_wrapper() {
  local wrapper="${cache}/kube-build"
  if [ -f "${wrapper}/go.mod" ] && grep -q "require k8s.io/kubernetes ${KUBE_VERSION}$" "${wrapper}/go.mod"; then
    echo "${wrapper}"
    return
  fi
  rm -rf "${wrapper}"
  mkdir -p "${wrapper}"
  local gomod
  gomod="$(cd "${wrapper}" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
  {
    echo "module ctrltest.dev/parity-kube"
    echo
    echo "go ${go_version}"
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
  echo "${wrapper}"
}

# kube-apiserver, and kube-controller-manager (parity.WithControllers runs
# its garbage collector and namespace controller beside the server).
for cmd in kube-apiserver kube-controller-manager; do
  if [ ! -x "${bin}/${cmd}" ] || [ "$("${bin}/${cmd}" --version 2>/dev/null)" != "Kubernetes ${KUBE_VERSION}" ]; then
    wrapper="$(kube_wrapper)"
    (
      cd "${wrapper}"
      rm -f "${bin}/${cmd}"
      GOFLAGS=-mod=mod go build -o "${bin}/${cmd}" \
        -ldflags "-X k8s.io/component-base/version.gitVersion=${KUBE_VERSION}" \
        "k8s.io/kubernetes/cmd/${cmd}"
    )
  fi
done

if [ ! -x "${bin}/etcd" ] || [ "$("${bin}/etcd" --version 2>/dev/null | head -n 1)" != "etcd Version: ${ETCD_VERSION#v}" ]; then
  wrapper="${cache}/etcd-build"
  rm -rf "${wrapper}"
  mkdir -p "${wrapper}"
  printf 'module ctrltest.dev/parity-etcd\n\ngo %s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' \
    "${go_version}" "${ETCD_VERSION}" >"${wrapper}/go.mod"
  # Never write through a link left by an earlier version of this script
  # (it pointed at the system's etcd).
  rm -f "${bin}/etcd"
  (cd "${wrapper}" && GOFLAGS=-mod=mod go build -o "${bin}/etcd" go.etcd.io/etcd/server/v3)
fi

echo "${bin}"
