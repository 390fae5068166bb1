package kube_test

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// Fixtures with kube.Server() in parallel share nothing they change (go
// test -race).
func TestParallelFixtures(t *testing.T) {
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			f := fixture.New(t, kube.Server(), fixture.WithObjects([]runtime.Object{deployment("web"), service("web")}...))
			c := f.Kube()
			res := fixture.Sync(f, func(ctx context.Context, _ string) error {
				d, err := c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					return err
				}
				d.Spec.Replicas = nil // defaulted again
				d.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("nginx:1.%d", i)
				if _, err := c.AppsV1().Deployments("default").Update(ctx, d, metav1.UpdateOptions{}); err != nil {
					return err
				}
				_, err = c.CoreV1().ConfigMaps("default").Create(ctx, configMap(fmt.Sprintf("c%d", i)), metav1.CreateOptions{})
				return err
			}, "default/web")
			if res.Err != nil {
				t.Fatal(res.Err)
			}
		})
	}
}
