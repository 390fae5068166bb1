#!/usr/bin/env bash
# Regenerates the reference controller's deepcopy functions, apply configurations,
# clientset (with its fake), listers and informers with k8s.io/code-generator,
# at the version pinned by hack/tools/go.mod's tool directives.
#
# Usage: hack/update-codegen.sh [OUTPUT_ROOT]
# OUTPUT_ROOT defaults to the repository; verify-codegen.sh points it at a
# scratch copy.
set -o errexit -o nounset -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
out_root="${1:-${root}}"
module="github.com/ctrltest/ctrltest"
boilerplate="${root}/hack/boilerplate.go.txt"
# The generators are pinned in hack/tools (a module of its own, so that they
# are not in the module graph of ctrltest's users).
tools="${root}/hack/tools/go.mod"

cd "${out_root}"

# generate APIS_DIR GROUP_VERSION OUTPUT_DIR [SCHEMA_CMD]
#   With SCHEMA_CMD (the package of a command that prints the definitions
#   openapi-gen made, e.g. ./hack/models-schema), OpenAPI definitions are
#   generated too (for packages tagged +k8s:openapi-gen=true) and given to
#   applyconfiguration-gen, so that the fake clientset's NewClientset can
#   track managed fields of the types.
#   APIS_DIR holds GROUP/VERSION packages; OUTPUT_DIR receives applyconfiguration,
#   clientset/versioned, listers and informers/externalversions.
generate() {
  local apis_dir="$1" group_version="$2" gen_dir="$3" openapi="${4:-}"
  local apis_pkg="${module}/${apis_dir}" gen_pkg="${module}/${gen_dir}"
  local input="${apis_pkg}/${group_version}"
  local schema_args=()

  rm -rf "${gen_dir}"
  rm -f "${apis_dir}/${group_version}/zz_generated.deepcopy.go"

  go tool -modfile="${tools}" deepcopy-gen \
    --go-header-file "${boilerplate}" \
    --output-file zz_generated.deepcopy.go \
    "${input}"

  if [ -n "${openapi}" ]; then
    local report schema
    report="$(mktemp)"
    schema="$(mktemp)"
    go tool -modfile="${tools}" openapi-gen \
      --go-header-file "${boilerplate}" \
      --output-file zz_generated.openapi.go \
      --output-dir "${gen_dir}/openapi" \
      --output-pkg "${gen_pkg}/openapi" \
      --report-filename "${report}" \
      --readonly-pkg k8s.io/apimachinery/pkg/apis/meta/v1 \
      --readonly-pkg k8s.io/apimachinery/pkg/runtime \
      --readonly-pkg k8s.io/apimachinery/pkg/version \
      --readonly-pkg k8s.io/apimachinery/pkg/api/resource \
      k8s.io/apimachinery/pkg/apis/meta/v1 \
      k8s.io/apimachinery/pkg/runtime \
      k8s.io/apimachinery/pkg/version \
      k8s.io/apimachinery/pkg/api/resource \
      "${input}"
    go run "${openapi}" >"${schema}"
    schema_args=(--openapi-schema "${schema}")
    rm -f "${report}"
  fi

  go tool -modfile="${tools}" applyconfiguration-gen \
    --go-header-file "${boilerplate}" \
    --output-dir "${gen_dir}/applyconfiguration" \
    --output-pkg "${gen_pkg}/applyconfiguration" \
    "${schema_args[@]}" \
    "${input}"

  go tool -modfile="${tools}" client-gen \
    --go-header-file "${boilerplate}" \
    --output-dir "${gen_dir}/clientset" \
    --output-pkg "${gen_pkg}/clientset" \
    --clientset-name versioned \
    --apply-configuration-package "${gen_pkg}/applyconfiguration" \
    --input-base "${apis_pkg}" \
    --input "${group_version}"

  go tool -modfile="${tools}" lister-gen \
    --go-header-file "${boilerplate}" \
    --output-dir "${gen_dir}/listers" \
    --output-pkg "${gen_pkg}/listers" \
    "${input}"

  go tool -modfile="${tools}" informer-gen \
    --go-header-file "${boilerplate}" \
    --output-dir "${gen_dir}/informers" \
    --output-pkg "${gen_pkg}/informers" \
    --versioned-clientset-package "${gen_pkg}/clientset/versioned" \
    --listers-package "${gen_pkg}/listers" \
    "${input}"
}

# The reference controller's API.
generate controller/apis samplecontroller/v1alpha1 controller/generated ./hack/models-schema
# A test-only API for ctrltest's own tests.
generate internal/testapi/apis gateway/v1alpha1 internal/testapi/generated ./hack/testapi-schema
# The same API without an OpenAPI schema, as a user may generate it: its
# fake's NewClientset knows none of the types (fixture/noschema_test.go).
generate internal/testapi/apis gateway/v1alpha1 internal/testapi/noschema

# internal/resources' table of client-go's kubernetes clientset: the rows of
# each supported minor (hack/minors.txt; KUBE_RESOURCES_MINORS names some),
# each read off that minor's clientset, merged into the file.
table="${out_root}/internal/resources/zz_generated.kube.go"
if [ "${out_root}" != "${root}" ]; then
  cp "${root}/internal/resources/zz_generated.kube.go" "${table}"
fi
while read -r minor version _; do
  case "${minor}" in ''|'#'*) continue ;; esac
  if [ -n "${KUBE_RESOURCES_MINORS:-}" ] && [[ " ${KUBE_RESOURCES_MINORS} " != *" ${minor} "* ]]; then
    continue
  fi
  "${root}/hack/kube-resources/run.sh" "${version}" "${table}"
done <"${root}/hack/minors.txt"
