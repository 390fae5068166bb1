#!/usr/bin/env bash
# Fails when a generated file of the reference controller is stale or was
# edited by hand: regenerates into a scratch copy and compares.
set -o errexit -o nounset -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
scratch="$(mktemp -d)"
trap 'rm -rf "${scratch}"' EXIT

# A copy of the module without generated output is enough to regenerate it.
cp "${root}/go.mod" "${root}/go.sum" "${scratch}/"
mkdir -p "${scratch}/controller" "${scratch}/internal/testapi"
cp -R "${root}/controller/apis" "${scratch}/controller/"
cp -R "${root}/internal/testapi/apis" "${scratch}/internal/testapi/"
mkdir -p "${scratch}/hack"
cp -R "${root}/hack/models-schema" "${scratch}/hack/"
cp -R "${root}/hack/testapi-schema" "${scratch}/hack/"
cp -R "${root}/hack/openapischema" "${scratch}/hack/"

# The resource table's rows of the newest minor (the others: make
# test-minors runs internal/resources' TestKubeTableIsGenerated on each).
mkdir -p "${scratch}/internal/resources"
KUBE_RESOURCES_MINORS="$(awk '$1 !~ /^#/ && NF {m = $1} END {print m}' "${root}/hack/minors.txt")" \
  "${root}/hack/update-codegen.sh" "${scratch}"

status=0
for path in controller/generated controller/apis internal/testapi/generated internal/testapi/noschema internal/testapi/apis internal/resources/zz_generated.kube.go; do
  if ! diff -r -u "${root}/${path}" "${scratch}/${path}" >"${scratch}/diff.txt"; then
    echo "verify-codegen: ${path} is out of date; run 'make codegen' and commit the result:" >&2
    cat "${scratch}/diff.txt" >&2
    status=1
  fi
done
exit "${status}"
