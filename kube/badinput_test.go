package kube

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	appsv1beta2 "k8s.io/api/apps/v1beta2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

// An object of a covered kind in a version kube-apiserver v1.37 does not
// serve (apps/v1beta2, which legacyscheme still converts; apps/v2, which a
// newer k8s.io/api could bring and legacyscheme does not know) is refused
// with a finding that names the versions served and the module's
// k8s.io/kubernetes and k8s.io/api, never a panic: a seed fails the test,
// a write gets the 422.
func TestUnservedVersion(t *testing.T) {
	labels := map[string]string{"app": "web"}
	beta := &appsv1beta2.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1beta2.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}},
	}
	const want = `Deployment.apps "web" is invalid: apiVersion: Invalid value: "apps/v1beta2": kube.Server(): the kube-apiserver of k8s.io/kubernetes v1.37.1 (the kube module's) does not serve Deployment in this version, only in apps/v1: a version it removed or has not made stable, or a type of a k8s.io/api other than the v0.37.2 k8s.io/kubernetes v1.37.1 is built for`
	t.Run("seed", func(t *testing.T) {
		rec := tbtest.Run(t, func(t testing.TB) {
			f := fixture.New(t, Server(), fixture.WithObjects(beta))
			fixture.Sync(f, func(context.Context, string) error { return nil }, "default/web")
		})
		if !rec.Failed() || !strings.Contains(rec.String(), want) || strings.Contains(rec.String(), "panic") {
			t.Errorf("failed %v, messages:\n%s\nwant one containing %q", rec.Failed(), rec, want)
		}
	})
	t.Run("write", func(t *testing.T) {
		f := fixture.New(t, Server())
		c := f.Kube()
		res := fixture.Sync(f, func(ctx context.Context, _ string) error {
			_, err := c.AppsV1beta2().Deployments("default").Create(ctx, beta, metav1.CreateOptions{})
			return err
		}, "default/web")
		if res.Err == nil || res.Err.Error() != want {
			t.Errorf("create of an apps/v1beta2 Deployment: %v; want %q", res.Err, want)
		}
	})
	t.Run("a version legacyscheme does not know", func(t *testing.T) {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v2", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "namespace": "default"}}}
		errs := Validate(fixture.Validation{Object: u})
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), `apiVersion: Invalid value: "apps/v2": kube.Server(): the kube-apiserver of k8s.io/kubernetes v1.37.1 (the kube module's) does not serve Deployment in this version, only in apps/v1`) {
			t.Errorf("an apps/v2 Deployment: %v", errs)
		}
	})
}

// The versions the findings name are those the module requires.
func TestVersions(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"k8s.io/kubernetes": kubernetesVersion, "k8s.io/api": apiVersion} {
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(path) + ` (v\S+)$`).FindSubmatch(mod)
		if m == nil || string(m[1]) != want {
			t.Errorf("go.mod requires %s %q; the findings name %s", path, m, want)
		}
	}
}
