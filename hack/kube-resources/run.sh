#!/usr/bin/env bash
# Runs hack/kube-resources against the k8s.io modules at VERSION (v0.37.2:
# k8s.io/api, apimachinery and client-go), writing OUT, without touching
# go.mod: the core module requires the oldest supported minor's modules,
# and each minor's rows of the table must be read off that minor's
# clientset. It switches a copy of go.mod (go get -modfile) and builds the
# command with it.
#
# Usage: hack/kube-resources/run.sh VERSION OUT
set -o errexit -o nounset -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
version="$1"
out="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT

cp "${root}/go.mod" "${tmp}/go.mod"
cp "${root}/go.sum" "${tmp}/go.sum"
cd "${root}"
if ! log="$(go get -modfile="${tmp}/go.mod" "k8s.io/api@${version}" "k8s.io/apimachinery@${version}" "k8s.io/client-go@${version}" 2>&1)"; then
  echo "${log}" >&2
  exit 1
fi
go run -modfile="${tmp}/go.mod" ./hack/kube-resources -o "${out}"
