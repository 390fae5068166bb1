#!/usr/bin/env bash
# hack/minors.sh (make test-minors): ctrltest on every supported Kubernetes
# minor of hack/minors.txt, from one branch.
#
# For each minor, in a copy of the working tree (tracked and untracked
# files, not .git or ignored ones) so that the tree itself is never
# switched:
#   - the core module and crd are switched to the minor's k8s.io modules
#     (go get k8s.io/api@v, apimachinery, client-go; apiextensions-apiserver
#     for crd), then go vet and go test;
#   - ctrlruntime is switched to the minor's controller-runtime release (and
#     its k8s.io modules), then go vet and go test;
#   - a throwaway consumer module pinned to the minor's k8s.io/client-go,
#     k8s.io/api and k8s.io/apimachinery adds ctrltest (a replace to another,
#     unswitched copy, go get), must keep every k8s.io and sigs.k8s.io module at the
#     version it had (go list -m), and runs a small table green.
# A module whose go.mod already requires the minor's versions is skipped
# (make test-all tests it, with -race), unless MINORS_ALL=1.
#
# The switched modules run without -race: make test-all runs the race
# detector on go.mod's minor; here the question is whether the code builds
# and behaves alike on another minor's client-go, and -race doubles the
# compile and run time (see README's test section for the times).
#
# Usage: hack/minors.sh [MINOR...]   (MINOR as in hack/minors.txt: 1.37)
#   MINORS_ALL=1   test a module on its own go.mod's minor too
#   MINORS_RACE=1  add -race to go vet and go test
set -o errexit -o nounset -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "${root}"

all="${MINORS_ALL:-}"
race=()
if [ -n "${MINORS_RACE:-}" ]; then race=(-race); fi

# minors.txt: minor, k8s.io version, controller-runtime version.
declare -A k8s cr
order=()
while read -r minor kv crv; do
  case "${minor}" in ''|'#'*) continue ;; esac
  k8s["${minor}"]="${kv}"
  cr["${minor}"]="${crv}"
  order+=("${minor}")
done <hack/minors.txt

if [ $# -gt 0 ]; then order=("$@"); fi

scratch="$(mktemp -d)"
trap 'rm -rf "${scratch}"' EXIT

# requires DIR MODULE VERSION: DIR's go.mod requires MODULE at VERSION.
requires() {
  [ "$(cd "$1" && go list -m -f '{{.Version}}' "$2")" = "$3" ]
}

# switch DIR MODULE@VERSION...: go get, quietly unless it fails.
switch() {
  local dir="$1"
  shift
  local log
  if ! log="$(cd "${dir}" && go get "$@" 2>&1)"; then
    echo "${log}" >&2
    return 1
  fi
}

# check DIR: go vet and go test of every package of the module in DIR.
check() {
  (cd "$1" && go vet "${race[@]}" ./... && go test "${race[@]}" -count=1 ./...)
}

# k8s.io and sigs.k8s.io modules of a module's graph, with versions.
kubemods() {
  (cd "$1" && go list -m -f '{{.Path}} {{.Version}}' all | grep -E '^(k8s\.io|sigs\.k8s\.io)/' | sort)
}

# consumer DIR TREE V: a module pinned to V's client-go adds ctrltest from
# TREE, keeps its pins, and runs a table.
consumer() {
  local dir="$1" tree="$2" v="$3"
  mkdir -p "${dir}"
  cat >"${dir}/go.mod" <<EOF
module example.com/consumer

go 1.26.0

require (
	k8s.io/api ${v}
	k8s.io/apimachinery ${v}
	k8s.io/client-go ${v}
)
EOF
  # The consumer's controller, before it adds ctrltest.
  cat >"${dir}/controller.go" <<'EOF'
// Package consumer is a controller repository's code: a sync handler that
// keeps a Secret for each ConfigMap.
package consumer

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// Sync makes the Secret of the ConfigMap key names, once.
func Sync(ctx context.Context, client kubernetes.Interface, configMaps corelisters.ConfigMapLister, secrets corelisters.SecretLister, key cache.ObjectName) error {
	cm, err := configMaps.ConfigMaps(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := secrets.Secrets(key.Namespace).Get(key.Name); err == nil {
		return nil
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: cm.Name, Namespace: cm.Namespace}, StringData: cm.Data}
	_, err = client.CoreV1().Secrets(cm.Namespace).Create(ctx, secret, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
EOF
  (cd "${dir}" && go mod tidy >/dev/null 2>&1) || { echo "consumer: go mod tidy failed before adding ctrltest" >&2; (cd "${dir}" && go mod tidy); return 1; }
  local before after
  before="$(kubemods "${dir}")"

  (cd "${dir}" && go mod edit -replace "github.com/ctrltest/ctrltest=${tree}")
  switch "${dir}" github.com/ctrltest/ctrltest@v0.0.0
  cat >"${dir}/controller_test.go" <<'EOF'
package consumer

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

func wire(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	client, core := f.Kube(), f.KubeInformers().Core().V1()
	configMaps, secrets := core.ConfigMaps().Lister(), core.Secrets().Lister()
	return func(ctx context.Context, key cache.ObjectName) error {
		return Sync(ctx, client, configMaps, secrets, key)
	}
}

func TestSync(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Data: map[string]string{"a": "b"}}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, StringData: map[string]string{"a": "b"}}
	fixture.Table[cache.ObjectName]{
		Wire: wire,
		Rows: []fixture.Row{{
			Name:        "a ConfigMap gets its Secret",
			Objects:     []runtime.Object{cm},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Create(secret)},
		}, {
			Name:    "the Secret exists: nothing to do",
			Objects: []runtime.Object{cm, secret},
			Key:     "default/web",
		}, {
			Name:    "no ConfigMap: nothing to do",
			Objects: []runtime.Object{fixture.Absent(cm)},
			Key:     "default/web",
		}},
	}.Run(t)
}
EOF
  (cd "${dir}" && go mod tidy >/dev/null 2>&1) || { (cd "${dir}" && go mod tidy); return 1; }
  after="$(kubemods "${dir}")"
  # Every k8s.io and sigs.k8s.io module the consumer had keeps its version
  # (ctrltest may add modules, such as sigs.k8s.io/yaml, but raise none).
  local raised
  raised="$(join -j 1 <(echo "${before}") <(echo "${after}") | awk '$2 != $3 {print "  " $1 " " $2 " => " $3}')"
  if [ -n "${raised}" ]; then
    echo "consumer on ${v}: adding ctrltest raised:" >&2
    echo "${raised}" >&2
    return 1
  fi
  echo "consumer on ${v}: $(cd "${dir}" && go list -m k8s.io/client-go) kept; $(echo "${before}" | wc -l) k8s.io and sigs.k8s.io modules unchanged"
  (cd "${dir}" && go vet ./... && go test -count=1 ./...)
}

status=0
for minor in "${order[@]}"; do
  v="${k8s[${minor}]:-}"
  crv="${cr[${minor}]:-}"
  if [ -z "${v}" ]; then
    echo "hack/minors.sh: ${minor} is not in hack/minors.txt" >&2
    exit 2
  fi
  start=${SECONDS}
  tree="${scratch}/${minor}/ctrltest"
  mkdir -p "${tree}"
  git ls-files --cached --others --exclude-standard -z | xargs -0 cp --parents -t "${tree}"
  # The consumer adds ctrltest as users get it: go.mod unswitched.
  mkdir -p "${scratch}/${minor}/clean"
  git ls-files --cached --others --exclude-standard -z | xargs -0 cp --parents -t "${scratch}/${minor}/clean"
  echo "=== Kubernetes ${minor}: k8s.io ${v}, controller-runtime ${crv} (copy in ${tree})"

  # Which modules to test: those whose go.mod does not require the minor.
  test_core=1 test_cr=1
  if [ -z "${all}" ] && requires . k8s.io/client-go "${v}"; then test_core=; fi
  if [ -z "${all}" ] && requires ctrlruntime sigs.k8s.io/controller-runtime "${crv}"; then test_cr=; fi
  # Switch all three modules of the copy, so that each one's go.mod agrees
  # with the others' (the core module's tests run go list -m in crd and
  # ctrlruntime).
  switch "${tree}" "k8s.io/api@${v}" "k8s.io/apimachinery@${v}" "k8s.io/client-go@${v}" &&
    switch "${tree}/crd" "k8s.io/api@${v}" "k8s.io/apimachinery@${v}" "k8s.io/client-go@${v}" "k8s.io/apiextensions-apiserver@${v}" &&
    switch "${tree}/ctrlruntime" "sigs.k8s.io/controller-runtime@${crv}" "k8s.io/api@${v}" "k8s.io/apimachinery@${v}" "k8s.io/client-go@${v}" "k8s.io/apiextensions-apiserver@${v}" ||
    { status=1; continue; }

  if [ -z "${test_core}" ]; then
    echo "--- core, crd: go.mod requires ${v} already (make test-all tests them)"
  else
    echo "--- core on ${v}"
    check "${tree}" || status=1
    echo "--- crd on ${v}"
    check "${tree}/crd" || status=1
  fi
  if [ -z "${test_cr}" ]; then
    echo "--- ctrlruntime: go.mod requires controller-runtime ${crv} already (make test-all tests it)"
  else
    echo "--- ctrlruntime on controller-runtime ${crv}"
    check "${tree}/ctrlruntime" || status=1
  fi

  echo "--- a consumer pinned to ${v} adds ctrltest"
  consumer "${scratch}/${minor}/consumer" "${scratch}/${minor}/clean" "${v}" || status=1
  echo "=== Kubernetes ${minor}: $((SECONDS - start)) s"
done
exit "${status}"
