package world

import (
	"strings"
	"testing"

	"github.com/ctrltest/ctrltest/internal/clientgo"
)

// startedInformer finds the informers the controller asked for once they
// run, and never makes one.
func TestStartedInformer(t *testing.T) {
	w := newWorld(t, func(c *Config) { c.Informers = true }, deploymentAt("default", "web", ""))
	cs := w.clientsets[0]
	_ = kubeFactory(t, w).Apps().V1().Deployments().Lister()
	if _, ok := cs.startedInformer(deploymentsGVR); ok {
		t.Errorf("an informer that is not started yet counts as started")
	}
	if mustStart(t, w) {
		w.StartInformers(t.Context().Done())
		must(t, w.AwaitCaches())
	}
	inf, ok := cs.startedInformer(deploymentsGVR)
	if !ok || len(inf.GetStore().ListKeys()) != 1 {
		t.Errorf("the started Deployments informer: %v, %v", inf, ok)
	}
	if _, ok := cs.startedInformer(configMapsGVR); ok {
		t.Errorf("an informer nobody asked for counts as started")
	}
	requested, _ := clientgo.FactoryInformers(cs.factory)
	if len(requested) != 1 {
		var types []string
		for typ := range requested {
			types = append(types, typ.String())
		}
		t.Errorf("the factory holds informers for %s; want only the Deployments'", strings.Join(types, ", "))
	}
}
