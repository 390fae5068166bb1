package kube_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// BenchmarkWrite is the cost of kube.Server() per write: a create and an
// update of a Deployment, on one fixture, with and without the option
// (the fixture's making is outside the timing).
func BenchmarkWrite(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []fixture.Option
	}{
		{"impl=bare", nil},
		{"impl=kube.Server", []fixture.Option{kube.Server()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := fixture.New(b, bc.opts...)
			c := f.Kube().AppsV1().Deployments("default")
			fixture.Sync(f, func(ctx context.Context, _ string) error {
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					d, err := c.Create(ctx, deployment("web"), metav1.CreateOptions{})
					if err != nil {
						return err
					}
					d.Spec.Template.Spec.Containers[0].Image = "nginx:1.30"
					if _, err := c.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
						return err
					}
					b.StopTimer()
					if err := c.Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
						return err
					}
					b.StartTimer()
				}
				return nil
			}, "default/web")
		})
	}
}
