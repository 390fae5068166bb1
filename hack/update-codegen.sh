#!/usr/bin/env bash
# Regenerates the reference controller's deepcopy functions, apply configurations,
# clientset (with its fake), listers and informers with k8s.io/code-generator,
# at the version pinned by go.mod's tool directives.
#
# Usage: hack/update-codegen.sh [OUTPUT_ROOT]
# OUTPUT_ROOT defaults to the repository; verify-codegen.sh points it at a
# scratch copy.
set -o errexit -o nounset -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
out_root="${1:-${root}}"
module="github.com/ctrltest/ctrltest"
apis_pkg="${module}/controller/apis"
gen_dir="controller/generated"
gen_pkg="${module}/${gen_dir}"
boilerplate="${root}/hack/boilerplate.go.txt"
input="${apis_pkg}/samplecontroller/v1alpha1"

cd "${out_root}"

rm -rf "${gen_dir}"
rm -f controller/apis/samplecontroller/v1alpha1/zz_generated.deepcopy.go

go tool deepcopy-gen \
  --go-header-file "${boilerplate}" \
  --output-file zz_generated.deepcopy.go \
  "${input}"

go tool applyconfiguration-gen \
  --go-header-file "${boilerplate}" \
  --output-dir "${gen_dir}/applyconfiguration" \
  --output-pkg "${gen_pkg}/applyconfiguration" \
  "${input}"

go tool client-gen \
  --go-header-file "${boilerplate}" \
  --output-dir "${gen_dir}/clientset" \
  --output-pkg "${gen_pkg}/clientset" \
  --clientset-name versioned \
  --apply-configuration-package "${gen_pkg}/applyconfiguration" \
  --input-base "${apis_pkg}" \
  --input samplecontroller/v1alpha1

go tool lister-gen \
  --go-header-file "${boilerplate}" \
  --output-dir "${gen_dir}/listers" \
  --output-pkg "${gen_pkg}/listers" \
  "${input}"

go tool informer-gen \
  --go-header-file "${boilerplate}" \
  --output-dir "${gen_dir}/informers" \
  --output-pkg "${gen_pkg}/informers" \
  --versioned-clientset-package "${gen_pkg}/clientset/versioned" \
  --listers-package "${gen_pkg}/listers" \
  "${input}"
