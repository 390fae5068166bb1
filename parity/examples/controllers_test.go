package examples

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// deletion is how a row's sync deletes the object its key names: with a
// propagation policy, or its namespace (then it creates in it).
var deletion = fixture.NewParam("deletion", metav1.DeletePropagationBackground)

// deleteNamespace is the deletion that deletes the key's namespace and
// then creates a ConfigMap in it.
const deleteNamespace metav1.DeletionPropagation = "namespace"

// TestControllersParity compares the companions (fixture.WithGarbageCollector,
// fixture.WithNamespaceLifecycle) with kube-controller-manager's own garbage
// collector and namespace controller, run beside the server
// (Server.StartControllers): a sync deletes an owner with each propagation
// policy, or a namespace, and the objects the two sides hold once the
// controllers have acted are compared.
func TestControllersParity(t *testing.T) {
	if os.Getenv(parity.EnvKubeconfig) != "" {
		t.Skip("a cluster of the user's runs its own controller manager, with every controller")
	}
	srv, err := parity.FromEnv(t.Context())
	if errors.Is(err, parity.ErrNoServer) && os.Getenv(parity.EnvRequired) != "1" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
	})
	if err := srv.StartControllers(t.Context()); err != nil {
		t.Fatal(err)
	}
	cm := func(name string, owners ...*corev1.ConfigMap) *corev1.ConfigMap {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name + "-uid")}}
		for _, o := range owners {
			c.OwnerReferences = append(c.OwnerReferences, metav1.OwnerReference{
				APIVersion: "v1", Kind: "ConfigMap", Name: o.Name, UID: o.UID, BlockOwnerDeletion: ptr.To(true),
			})
		}
		return c
	}
	owner := cm("owner")
	dependent, other := cm("dependent", owner), cm("other")
	grandchild := cm("grandchild", dependent)
	shared := cm("shared", owner, other)
	gone := cm("gone")
	dangling := cm("dangling", gone)

	tb := fixture.Table[string]{
		Wire: func(f *fixture.Fixture) fixture.SyncFunc[string] {
			how := deletion.Get(f)
			return func(ctx context.Context, key string) error {
				ns, name, _ := strings.Cut(key, "/")
				if how == deleteNamespace {
					if err := f.Kube().CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
						return err
					}
					_, err := f.Kube().CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
					return err
				}
				return f.Kube().CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr.To(how)})
			}
		},
		Options: []fixture.Option{fixture.WithGarbageCollector(), fixture.WithNamespaceLifecycle()},
		// Only the world once the controllers have acted is compared.
		Checks: fixture.Checks{Idempotency: fixture.Off, FaultSweep: fixture.Off, CacheSweep: fixture.Off, EventSweep: fixture.Off},
		Rows: []fixture.Row{{
			Name:    "a dependent whose owner is gone is collected",
			Objects: []runtime.Object{dangling, other},
			Key:     "default/other", // deleting it lets the collector run
		}, {
			Name:    "a background delete: the dependents go after the owner",
			Objects: []runtime.Object{owner, dependent, grandchild, shared, other},
			Key:     "default/owner",
		}, {
			Name:    "a foreground delete: the dependents go first, then the owner",
			Objects: []runtime.Object{owner, dependent, grandchild, shared, other},
			Key:     "default/owner",
			Options: []fixture.Option{deletion.Set(metav1.DeletePropagationForeground)},
		}, {
			Name:    "an orphan delete: the dependents stay without the owner's reference",
			Objects: []runtime.Object{owner, dependent, grandchild, shared, other},
			Key:     "default/owner",
			Options: []fixture.Option{deletion.Set(metav1.DeletePropagationOrphan)},
		}, {
			Name:    "a deleted namespace is emptied and removed; a create in it is refused",
			Objects: []runtime.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, cm("settings")},
			Key:     "team/settings",
			WantErr: fixture.ErrorContains("because it is being terminated"),
			Options: []fixture.Option{deletion.Set(deleteNamespace)},
		}},
	}
	tb.Rows[4].Objects[1].(*corev1.ConfigMap).Namespace = "team"
	parity.Run(t, srv, tb)
}
