package kube

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

// panicking is a Deployment strategy whose validation panics, as a bug in
// kube-apiserver's code would.
type panicking struct{ strategy }

func (panicking) Validate(context.Context, runtime.Object) field.ErrorList { panic("boom") }

func (panicking) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	panic("boom")
}

func web() *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}},
			},
		},
	}
}

// A panic in kube-apiserver's code never panics through the fixture: it
// fails the test, naming the object, on a seed as on a write (which gets
// an error).
func TestPanicFailsTheTest(t *testing.T) {
	s := server{resources: map[schema.GroupKind]resource{
		{Group: "apps", Kind: "Deployment"}: {"deployments", panicking{deployment.Strategy}, nil},
	}}
	const want = "fixture: the validation function panicked on Deployment default/web: boom"
	for _, tc := range []struct {
		name string
		run  func(t testing.TB)
	}{{
		name: "seed",
		run: func(t testing.TB) {
			f := fixture.New(t, s.option(), fixture.WithObjects(web()))
			fixture.Sync(f, func(context.Context, string) error { return nil }, "default/web")
		},
	}, {
		name: "write",
		run: func(t testing.TB) {
			f := fixture.New(t, s.option())
			c := f.Kube()
			res := fixture.Sync(f, func(ctx context.Context, _ string) error {
				_, err := c.AppsV1().Deployments("default").Create(ctx, web(), metav1.CreateOptions{})
				return err
			}, "default/web")
			if res.Err == nil {
				t.Errorf("the create succeeded")
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tbtest.Run(t, tc.run)
			if !rec.Failed() || !strings.Contains(rec.String(), want) {
				t.Errorf("failed %v, messages:\n%s\nwant one containing %q", rec.Failed(), rec, want)
			}
			for _, m := range rec.Messages() {
				if strings.HasPrefix(m, "panic: ") {
					t.Errorf("a panic got through the fixture:\n%s", m)
				}
			}
			if strings.Contains(rec.String(), "the create succeeded") {
				t.Errorf("the write was not refused")
			}
		})
	}
}
