package kube_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// The warnings kube-apiserver gives a write it accepts are the sync's,
// word for word (the Deployment strategy's WarningsOnCreate and
// WarningsOnUpdate: pkg/api/pod's warnings for its template); a write it
// refuses has none.
func TestWarnings(t *testing.T) {
	d := deployment("web")
	d.Spec.Template.Spec.NodeSelector = map[string]string{"beta.kubernetes.io/arch": "amd64"}
	f := fixture.New(t, kube.Server())
	c := f.Kube().AppsV1().Deployments("default")
	res := fixture.Sync(f, func(ctx context.Context, _ string) error {
		if _, err := c.Create(ctx, d, metav1.CreateOptions{}); err != nil {
			return err
		}
		if _, err := c.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{}); err != nil {
			return err
		}
		// Refused (a changed selector): no warning.
		_, _ = c.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"selector":{"matchLabels":{"app":"x"}}}}`), metav1.PatchOptions{})
		return nil
	}, "default/web")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	const text = `spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: deprecated since v1.14; use "kubernetes.io/arch" instead`
	var got []string
	for _, w := range res.Warnings {
		got = append(got, w.Action.Verb+" "+w.Text)
	}
	want := []string{"create " + text, "patch " + text}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the sync's warnings (-want +got):\n%s", diff)
	}
}
