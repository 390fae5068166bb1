package crd_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/crd"
	"github.com/ctrltest/ctrltest/examples/foo"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// The Foo controller (controller/) on a world that treats Foos as
// kube-apiserver does with the CRD of testdata/foos.yaml: spec.replicas
// defaults to 1, a CEL rule ties replicas to a deploymentName, and a
// transition rule keeps the deploymentName once set.
func TestFooControllerWithCRD(t *testing.T) {
	schema := crd.Files(t, "testdata/foos.yaml")
	withoutReplicas := foo.NewFoo(0)
	withoutReplicas.Spec.Replicas = nil // the server defaults it to 1
	defaulted := withoutReplicas.DeepCopy()
	defaulted.Spec.Replicas = ptr.To[int32](1)
	fixture.Table[cache.ObjectName]{
		Wire:    foo.Wire,
		Options: []fixture.Option{fixture.WithClientset(foo.Foos), schema},
		Rows: []fixture.Row{{
			Name:        "a Foo without replicas gets the CRD's default",
			Key:         "default/test",
			Objects:     []runtime.Object{withoutReplicas},
			WantActions: []actions.Action{actions.Create(foo.NewDeployment(defaulted, 1))},
			WantEvents:  []records.Event{fixture.NewEvent(defaulted, "Normal", controller.SuccessSynced, controller.MessageResourceSynced)},
		}},
	}.Run(t)
}

// rename is a controller step with a bug the CRD catches: it gives a Foo's
// Deployment a new name, which the CRD's transition rule forbids.
func rename(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	foos := foo.Foos.Client(f).SamplecontrollerV1alpha1()
	return func(ctx context.Context, key cache.ObjectName) error {
		fo, err := foos.Foos(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		fo.Spec.DeploymentName = fo.Name + "-v2"
		_, err = foos.Foos(key.Namespace).Update(ctx, fo, metav1.UpdateOptions{})
		return err
	}
}

// With the CRD, the update the server would refuse is refused in the unit
// test too, with the server's message; without it, the fakes accept it.
func TestTransitionRuleCatchesARename(t *testing.T) {
	seed := foo.NewFoo(1)
	fixture.Table[cache.ObjectName]{
		Wire:    rename,
		Options: []fixture.Option{fixture.WithClientset(foo.Foos)},
		Rows: []fixture.Row{{
			Name:    "with the CRD: 422, as on a server",
			Key:     "default/test",
			Objects: []runtime.Object{seed},
			Options: []fixture.Option{crd.Files(t, "testdata/foos.yaml")},
			// The request was made, and refused.
			WantActions: []actions.Action{actions.Update(renamed(seed))},
			WantErr:     fixture.ErrorMessage(`Foo.samplecontroller.ctrltest.dev "test" is invalid: spec.deploymentName: Invalid value: "test-v2": deploymentName cannot be changed once set`),
		}, {
			Name:        "without it: the fakes accept what a server refuses",
			Key:         "default/test",
			Objects:     []runtime.Object{seed},
			WantActions: []actions.Action{actions.Update(renamed(seed))},
			Checks:      fixture.Checks{Idempotency: fixture.Off}, // it renames on every sync
		}},
	}.Run(t)
}

func renamed(fo *v1alpha1.Foo) *v1alpha1.Foo {
	fo = fo.DeepCopy()
	fo.Spec.DeploymentName = fo.Name + "-v2"
	return fo
}

// Definitions default and validate objects directly too, as the API
// server's custom resource handler and strategy do.
func ExampleDefinitions_Validate() {
	manifest, err := os.ReadFile("testdata/foos.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	defs, err := crd.Parse("testdata/foos.yaml", manifest)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := defs.Resources()[0]
	fmt.Println(r.Plural, r.Namespaced, r.Versions[0].Status)

	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.ctrltest.dev/v1alpha1",
		"kind":       "Foo",
		"metadata":   map[string]any{"name": "web", "namespace": "default"},
		"spec":       map[string]any{"deploymentName": "", "typo": true},
	}}
	if err := defs.Default(obj); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(obj.Object["spec"])
	for _, e := range defs.Validate(obj, nil, "") {
		fmt.Println(e)
	}
	// Output:
	// foos true true
	// map[deploymentName: replicas:1]
	// spec: Invalid value: a Foo with replicas needs a deploymentName
}
