package garbagecollection

import (
	"time"

	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/examples/foo"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

func TestFooWithTheCluster(t *testing.T) {
	synced := fixture.NewEvent(foo.NewFoo(1), "Normal", controller.SuccessSynced, controller.MessageResourceSynced)
	inSync := foo.NewFoo(1)
	inSync.Status.AvailableReplicas = 1
	available := foo.Available(foo.NewDeployment(inSync, 1))

	// A Foo deleted in the foreground: the server gave it the garbage
	// collector's finalizer.
	deleting := inSync.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	deleting.Finalizers = []string{metav1.FinalizerDeleteDependents}

	// A namespace being deleted, with a Foo in it.
	team := &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "team", DeletionTimestamp: &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}},
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
	}
	late := foo.NewFoo(1)
	late.Namespace, late.UID = "team", "late-uid"

	fixture.Table[cache.ObjectName]{
		Wire:    foo.Wire,
		Options: []fixture.Option{fixture.WithClientset(foo.Foos), fixture.WithGarbageCollector(), fixture.WithNamespaceLifecycle()},
		Rows: []fixture.Row{{
			Name: "a deleted Foo's Deployment is collected",
			// The Foo is gone; its Deployment's owner reference dangles.
			Objects:     []runtime.Object{available, fixture.Absent(foo.NewFoo(1))},
			Key:         "default/test",
			WantObjects: []runtime.Object{fixture.Absent(available)},
		}, {
			Name: "a Foo deleted in the foreground goes after its Deployment",
			// The sync sees a Foo in sync; the garbage collector then
			// deletes the Deployment, which blocks its owner's deletion,
			// then lets the Foo go. The Deployment's delete event queues
			// the Foo, whose sync finds it gone.
			Objects:     []runtime.Object{deleting, available},
			Key:         "default/test",
			WantEvents:  []records.Event{synced},
			WantObjects: []runtime.Object{fixture.Absent(deleting), fixture.Absent(available)},
		}, {
			Name: "a Foo in a terminating namespace cannot get its Deployment",
			// The server refuses the create; the namespace controller then
			// deletes the Foo and removes the namespace.
			Objects:     []runtime.Object{team, late},
			Key:         "team/test",
			WantActions: []actions.Action{actions.Create(foo.NewDeployment(late, 1))},
			WantErr:     fixture.ErrorContains("unable to create new content in namespace team because it is being terminated"),
			WantObjects: []runtime.Object{fixture.Absent(late), fixture.Absent(team)},
		}},
	}.Run(t)
}
