package webapp_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// TestReconcileParity runs rows of the WebApp table on the fixture's world
// and on kube-apiserver (the WebApp CRD installed), through
// controller-runtime's own client there.
func TestReconcileParity(t *testing.T) {
	tb := newTable(
		fixture.Row{Name: "a new WebApp", Objects: []runtime.Object{app()}, Key: key,
			WantReturned: pending},
		fixture.Row{Name: "an available Deployment", Key: key,
			Objects: []runtime.Object{app(withFinalizer), deployment(2), service()}},
		fixture.Row{Name: "a WebApp that is gone", Key: key, AbsentKey: true},
		fixture.Row{Name: "an empty image", Key: key, WantErr: ctrlruntime.Terminal("spec.image is empty"),
			Objects: []runtime.Object{app(withFinalizer, func(a *webappv1.WebApp) { a.Spec.Image = "" })}},
	)
	parity.Run(t, parity.Shared(t), tb,
		parity.Known{Row: "a new WebApp", Kind: parity.Defaulting,
			Reason: "the server defaults the Deployment and the Service the reconciler creates; the fakes do not"},
		parity.Known{Row: "an available Deployment", Kind: parity.Defaulting,
			Reason: "the server defaults the seeded Deployment and Service; the fakes do not"},
	)
}
