package world

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/scale"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/internal/apiserver"
	"github.com/ctrltest/ctrltest/internal/clients"
	"github.com/ctrltest/ctrltest/internal/delivery"
	"github.com/ctrltest/ctrltest/internal/resources"
)

// otherClients are the fixture's clients other than the registered
// clientsets (internal/clients, on the world as its Host) and their
// informer factories, made on first use.
type otherClients struct {
	clientsOnce           sync.Once
	others                *clients.Clients
	dynamicInformersOnce  sync.Once
	dynamicInformers      *delivery.SourceFactory
	metadataInformersOnce sync.Once
	metadataInformers     *delivery.SourceFactory
}

// clients returns the world's other clients.
func (w *World) clients() *clients.Clients {
	w.clientsOnce.Do(func() { w.others = clients.New(clientsHost{w}) })
	return w.others
}

// Dynamic is fixture.Fixture.Dynamic.
func (w *World) Dynamic() (dynamic.Interface, error) {
	c, err := w.clients().Dynamic()
	if err != nil {
		return nil, fmt.Errorf("fixture.Dynamic: %v", err)
	}
	return c, nil
}

// DynamicInformers is fixture.Fixture.DynamicInformers.
func (w *World) DynamicInformers() (dynamicinformer.DynamicSharedInformerFactory, error) {
	dyn, err := w.Dynamic()
	if err != nil {
		return nil, err
	}
	w.dynamicInformersOnce.Do(func() {
		w.dynamicInformers = w.newSource("dynamic", dynamicinformer.NewDynamicSharedInformerFactory(dyn, w.factoryResync()), w.unstructuredOf)
	})
	return w.dynamicInformers, nil
}

// MetadataInformers is fixture.Fixture.MetadataInformers.
func (w *World) MetadataInformers() (metadatainformer.SharedInformerFactory, error) {
	md, err := w.Metadata()
	if err != nil {
		return nil, err
	}
	w.metadataInformersOnce.Do(func() {
		w.metadataInformers = w.newSource("metadata", metadatainformer.NewSharedInformerFactory(md, w.factoryResync()), clients.Metadata)
	})
	return w.metadataInformers, nil
}

// Metadata is fixture.Fixture.Metadata.
func (w *World) Metadata() (metadata.Interface, error) {
	c, err := w.clients().Metadata()
	if err != nil {
		return nil, fmt.Errorf("fixture.Metadata: %v", err)
	}
	return c, nil
}

// Discovery is fixture.Fixture.Discovery.
func (w *World) Discovery() discovery.DiscoveryInterface { return w.clients().Discovery() }

// Scales is fixture.Fixture.Scales.
func (w *World) Scales() scale.ScalesGetter { return w.clients().Scales() }

// unstructuredOf returns the unstructured form of a typed object, with its
// apiVersion and kind, as kube-apiserver answers the dynamic client.
func (w *World) unstructuredOf(obj runtime.Object) (runtime.Object, error) {
	return w.clients().Unstructured(obj)
}

// clientsHost is the world as the other clients' Host.
type clientsHost struct{ w *World }

func (h clientsHost) Invoke(a clienttesting.Action) (runtime.Object, error) { return h.w.Invoke(a) }
func (h clientsHost) InvokeWatch(a clienttesting.Action) (watch.Interface, error) {
	return h.w.InvokeWatch(a)
}
func (h clientsHost) Refused(a clienttesting.Action) { h.w.recordRefused(a) }
func (h clientsHost) Scheme() *runtime.Scheme        { return h.w.Scheme() }
func (h clientsHost) RESTMapper() meta.RESTMapper    { return h.w.RESTMapper() }

func (h clientsHost) RESTConfig() *rest.Config {
	if h.w.backend.traits().fakeClients {
		return nil
	}
	return h.w.RESTConfig()
}

func (h clientsHost) Info(gvr schema.GroupVersionResource) *resources.Info {
	in, _ := h.w.lookupGVR(gvr)
	return in
}

func (h clientsHost) InfoOf(obj runtime.Object) *resources.Info {
	in, _ := h.w.lookup(obj)
	return in
}

func (h clientsHost) Unrecorded(a clienttesting.Action) (runtime.Object, bool) {
	_, cs := h.w.lookupGVR(a.GetResource())
	if cs == nil {
		return nil, false
	}
	if handled, obj, err := h.w.backend.serve(cs, -1, a); handled && err == nil {
		return obj, true
	}
	return nil, false
}

func (h clientsHost) Tables() []*resources.Table {
	out := make([]*resources.Table, len(h.w.clientsets))
	for i, cs := range h.w.clientsets {
		out[i] = cs.table
	}
	return out
}

func (h clientsHost) Subresources(in *resources.Info) ([]apiserver.Subresource, bool) {
	if !h.w.backend.traits().servesSubresources {
		return nil, false
	}
	m := apiserver.Resource{GVR: in.GVR, GVK: in.GVK, Custom: isCustom(in)}
	for _, cs := range h.w.clientsets { // the registration in is of
		if own, ok := cs.table.ForGVR(in.GVR); ok && own == in {
			cs.describeCustom(&m)
			break
		}
	}
	return m.Subresources(), true
}
