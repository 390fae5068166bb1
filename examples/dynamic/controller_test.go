package dynamic_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrltest/ctrltest/actions"
	samplev1alpha1 "github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	foofake "github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	fooinformers "github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
	"github.com/ctrltest/ctrltest/examples/dynamic"
	"github.com/ctrltest/ctrltest/fixture"
)

// TestSync runs the table on the fixture's default world, where the
// informers are never started: the dynamic and metadata informers the
// controller asked for are filled with the seeds' unstructured and
// metadata forms.
func TestSync(t *testing.T) { dynamic.Table().Run(t) }

// TestSyncInformerMode runs the same table with started informers, which
// list and watch through the fixture's dynamic and metadata clients.
func TestSyncInformerMode(t *testing.T) {
	tb := dynamic.Table()
	tb.Options = append(tb.Options, fixture.WithInformers())
	tb.Run(t)
}

// foos registers the reference controller's clientset: its Foo custom
// resource is then in the world, under the plural its clientset gives.
var foos = fixture.Register(foofake.NewSimpleClientset, foofake.AddToScheme, fooinformers.NewSharedInformerFactory)

// TestCustomResource annotates a Foo: the same controller, configured for
// the foos resource, with no generated code of its own.
func TestCustomResource(t *testing.T) {
	foo := &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "example"}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{dynamic.TeamLabel: "blue"}}}
	fixture.Table[string]{
		Wire: func(f *fixture.Fixture) fixture.SyncFunc[string] {
			return dynamic.New(f.Dynamic(), samplev1alpha1.SchemeGroupVersion.WithResource("foos"), f.DynamicInformers(), f.MetadataInformers()).Sync
		},
		Options: []fixture.Option{fixture.WithClientset(foos)},
		Rows: []fixture.Row{{
			Name:    "annotates a Foo",
			Objects: []runtime.Object{ns, foo},
			Key:     "default/example",
			WantActions: []actions.Action{actions.Patch(foo, types.MergePatchType,
				[]byte(`{"metadata":{"annotations":{"`+dynamic.TeamAnnotation+`":"blue"}}}`))},
		}},
	}.Run(t)
}

// TestFaultSweep fails each write of each row once: the controller must
// return the error (so that its key is retried), as it does for a typed
// client's; the fixture's induced failures apply to the dynamic client's
// requests too.
func TestFaultSweep(t *testing.T) {
	tb := dynamic.Table()
	tb.Checks.FaultSweep = fixture.On
	tb.Run(t)
}
