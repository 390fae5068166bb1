#!/usr/bin/env bash
# binary-size: the size of a controller test binary with ctrltest against
# the hand-written fixture's (issue 23 item 13). Builds three test binaries
# of the same test (the reference controller creates a Deployment and
# updates its Foo's status) with go test -c, in a scratch package of the
# core module (.cache/binary-size, which git ignores):
#
#   handwritten      internal/bench's copy of sample-controller's fixture
#                    (reflect.DeepEqual, no go-cmp);
#   handwritten-cmp  the same, plus one cmp.Equal call;
#   ctrltest         fixture.New, fixture.Sync and AssertActions.
#
# and prints their sizes, the ratios, how many functions of client-go's
# real kubernetes clientset each links (none: the built-in kubernetes registration leaves it to the
# server, see fixture.ClientsetServer), and the functions in each binary that
# call reflect's Method or MethodByName with a name the linker cannot see:
# any one of them makes the linker keep every exported method of every
# type converted to an interface (for client-go's fake clientsets, every
# API group's clients, informers and listers). See docs/performance.md.
set -o errexit -o nounset -o pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
dir="${root}/.cache/binary-size"
rm -rf "${dir}"
mkdir -p "${dir}/handwritten" "${dir}/handwritten-cmp" "${dir}/ctrltest" "${dir}/bin"

cat >"${dir}/seed.go.txt" <<'GO'
import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
)

const (
	testNamespace = metav1.NamespaceDefault
	testName      = "test"
)

func newFoo() *v1alpha1.Foo {
	return &v1alpha1.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Name: testName, Namespace: testNamespace, UID: "foo-uid"},
		Spec:       v1alpha1.FooSpec{DeploymentName: testName, Replicas: ptr.To[int32](1)},
		Status:     v1alpha1.FooStatus{AvailableReplicas: 1},
	}
}

func newDeployment(foo *v1alpha1.Foo) *appsv1.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: foo.Spec.DeploymentName, Namespace: foo.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(foo, v1alpha1.SchemeGroupVersion.WithKind("Foo"))}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(*foo.Spec.Replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}}}},
	}
}

func withStatus(foo *v1alpha1.Foo, available int32) *v1alpha1.Foo {
	foo = foo.DeepCopy()
	foo.Status.AvailableReplicas = available
	return foo
}
GO

for pkg in handwritten handwritten-cmp; do
	name="${pkg//-/}"
	sed "s/^package bench$/package ${name}/" "${root}/internal/bench/handwritten_test.go" >"${dir}/${pkg}/handwritten_test.go"
	{
		echo "package ${name}"
		echo
		cat "${dir}/seed.go.txt"
		cat <<'GO'

func TestCreatesDeployment(t *testing.T) {
	f := newFixture(t, simple, false)
	foo := newFoo()
	_, ctx := ktesting.NewTestContext(t)
	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.expectCreateDeploymentAction(newDeployment(foo))
	f.expectUpdateFooStatusAction(withStatus(foo, 0))
	f.run(ctx, getRef(foo, t), false)
}
GO
	} >"${dir}/${pkg}/main_test.go"
done
cat >"${dir}/handwritten-cmp/cmp_test.go" <<'GO'
package handwrittencmp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCmp(t *testing.T) {
	if !cmp.Equal(newFoo(), newFoo()) {
		t.Error("not equal")
	}
}
GO
{
	echo "package ctrltest"
	echo
	sed -e 's|"k8s.io/klog/v2/ktesting"|"k8s.io/client-go/tools/cache"\n\n\t"github.com/ctrltest/ctrltest/actions"\n\t"github.com/ctrltest/ctrltest/controller"\n\t"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"\n\t"github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"\n\t"github.com/ctrltest/ctrltest/fixture"|' "${dir}/seed.go.txt"
	cat <<'GO'

var foos = fixture.Register(fake.NewSimpleClientset, fake.AddToScheme, externalversions.NewSharedInformerFactory)

func TestCreatesDeployment(t *testing.T) {
	foo := newFoo()
	f := fixture.New(t, fixture.WithClientset(foos), fixture.WithObjects(foo))
	c, err := controller.New(f.Context(), f.Kube(), foos.Client(f),
		f.KubeInformers().Apps().V1().Deployments(), foos.Informers(f).Samplecontroller().V1alpha1().Foos(),
		f.Recorder(), controller.WithQueue(fixture.Queue[cache.ObjectName](f)))
	if err != nil {
		t.Fatal(err)
	}
	fixture.Sync(f, c.Sync, testNamespace+"/"+testName).
		AssertActions([]actions.Action{actions.Create(newDeployment(foo)), actions.UpdateStatus(withStatus(foo, 0))})
}
GO
} >"${dir}/ctrltest/main_test.go"

cd "${dir}"
go test -count=1 ./handwritten/ ./handwritten-cmp/ ./ctrltest/ >/dev/null
for pkg in handwritten handwritten-cmp ctrltest; do
	go test -c -o "bin/${pkg}.test" -ldflags=-dumpdep "./${pkg}/" 2>"bin/${pkg}.deps"
done
base="$(stat -c %s bin/handwritten.test)"
printf '%-16s %12s %7s\n' binary bytes ratio
for pkg in handwritten handwritten-cmp ctrltest; do
	size="$(stat -c %s "bin/${pkg}.test")"
	awk -v p="${pkg}" -v s="${size}" -v b="${base}" 'BEGIN { printf "%-16s %12d %6.2fx\n", p, s, s / b }'
done
echo
echo "functions of client-go's real kubernetes clientset (kubernetes.NewForConfig and its typed clients,"
echo "which the parity module's server builds; the fakes are not counted)"
for pkg in handwritten handwritten-cmp ctrltest; do
	go tool nm "bin/${pkg}.test" | awk -v p="${pkg}" '$2 == "T" && $3 ~ /^k8s\.io\/client-go\/kubernetes(\/typed\/[a-z0-9\/]+)?\./ && $3 !~ /\/fake\./ { n++ }
		END { printf "  %-16s %6d\n", p, n }'
done
for pkg in handwritten handwritten-cmp ctrltest; do
	echo
	echo "${pkg}: functions that call reflect's Method or MethodByName with a name the linker cannot see"
	grep -o '[^ ]* <ReflectMethod> ->' "bin/${pkg}.deps" | sed 's/ <ReflectMethod> ->//' | grep -v '^reflect\.' | sort -u | sed 's/^/  /' || echo "  (none)"
done
