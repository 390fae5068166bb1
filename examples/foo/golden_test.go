package foo

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/golden"
)

// TestMain fails the run when testdata/ holds a golden file no test
// produced, or when a goroutine outlives the tests.
func TestMain(m *testing.M) {
	code := golden.Main(m)
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// The same scenarios as TestFooController, with golden files as the
// expectation: testdata/TestFooControllerGolden/<row>.golden.yaml shows every
// write, event, queue record and error of each sync. Regenerate them with
//
//	go test ./examples/foo -run TestFooControllerGolden -update
func TestFooControllerGolden(t *testing.T) {
	foo := NewFoo(1)
	available := Available(NewDeployment(foo, 1))
	fixture.Table[cache.ObjectName]{Wire: Wire, Checks: fixture.Checks{Golden: fixture.On}, Options: []fixture.Option{fixture.WithClientset(Foos)}, Rows: []fixture.Row{
		{Name: "creates a Deployment", Key: "default/test", Objects: []runtime.Object{foo}},
		{Name: "reports available replicas", Key: "default/test", Objects: []runtime.Object{foo, available}},
		{Name: "updates the Deployment's replicas", Key: "default/test", Objects: []runtime.Object{NewFoo(2), NewDeployment(foo, 1)}},
		{Name: "refuses a Deployment it does not control", Key: "default/test",
			Objects: []runtime.Object{foo, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: "default"}}}},
	}}.Run(t)
}

// TestFooCases runs the declarative cases of testdata/cases: each YAML file
// holds a header naming the key and the seed manifests; its golden file
// stands beside it. Adding a case needs no Go code.
func TestFooCases(t *testing.T) {
	fixture.Cases[cache.ObjectName]{
		Dir:     "testdata/cases",
		Wire:    Wire,
		Options: []fixture.Option{fixture.WithClientset(Foos)},
	}.Run(t)
}
