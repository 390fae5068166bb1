package ctrlruntime_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

func TestManagerFieldIndexer(t *testing.T) {
	f := fixture.New(t, fixture.WithObjects(pod("default", "a", "node-1", nil), pod("default", "b", "node-2", nil)))
	env := ctrlruntime.NewEnv(f, ctrlruntime.Cached())
	mgr := env.Manager
	err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
		return []string{o.(*corev1.Pod).Spec.NodeName}
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]client.Reader{"client": mgr.GetClient(), "API reader": mgr.GetAPIReader(), "cache": mgr.GetCache()} {
		var l corev1.PodList
		if err := c.List(context.Background(), &l, client.MatchingFields{"spec.nodeName": "node-2"}); err != nil || len(l.Items) != 1 || l.Items[0].Name != "b" {
			t.Errorf("%s: List by the index the manager's field indexer registered: %d items, %v; want b", name, len(l.Items), err)
		}
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, "spec.nodeName", func(client.Object) []string { return nil }); err == nil {
		t.Errorf("an index registered twice: no error")
	}
	if err := mgr.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "env.Manager.Watches(t)") {
		t.Errorf("Manager.Start: %v; want an error that says what to use", err)
	}
}

func TestWatchesBadInput(t *testing.T) {
	rec := tbtest.Run(t, func(t testing.TB) {
		f := fixture.New(t)
		ctrlruntime.NewEnv(f).Manager.Watches(t)
	})
	if !strings.Contains(rec.String(), "call the reconciler's SetupWithManager(env.Manager)") {
		t.Errorf("Watches without a controller: %q; want a failure that names SetupWithManager", rec)
	}
}
