package world

import (
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/scale"
	fakescale "k8s.io/client-go/scale/fake"
	clienttesting "k8s.io/client-go/testing"
)

// The fixture's clients other than the registered clientsets, made on
// first use (see dynamic.go, metadata.go, discovery.go, scale.go).

// Dynamic is fixture.Fixture.Dynamic.
func (w *World) Dynamic() dynamic.Interface {
	w.dynamicOnce.Do(func() {
		if w.backend.traits().fakeClients {
			w.dynamicClient = &worldDynamic{w: w}
			return
		}
		c, err := dynamic.NewForConfig(w.RESTConfig())
		if err != nil {
			w.t.Helper()
			w.t.Fatalf("fixture.Dynamic: %v", err)
		}
		w.dynamicClient = c
	})
	return w.dynamicClient
}

// DynamicInformers is fixture.Fixture.DynamicInformers.
func (w *World) DynamicInformers() dynamicinformer.DynamicSharedInformerFactory {
	w.dynamicInformersOnce.Do(func() {
		w.dynamicInformers = w.newSource("dynamic", dynamicinformer.NewDynamicSharedInformerFactory(w.Dynamic(), w.factoryResync()), w.unstructuredOf)
	})
	return w.dynamicInformers
}

// MetadataInformers is fixture.Fixture.MetadataInformers.
func (w *World) MetadataInformers() metadatainformer.SharedInformerFactory {
	w.metadataInformersOnce.Do(func() {
		w.metadataInformers = w.newSource("metadata", metadatainformer.NewSharedInformerFactory(w.Metadata(), w.factoryResync()), w.metadataOf)
	})
	return w.metadataInformers
}

// Metadata is fixture.Fixture.Metadata.
func (w *World) Metadata() metadata.Interface {
	w.metadataOnce.Do(func() {
		if w.backend.traits().fakeClients {
			w.metadataClient = &worldMetadata{w: w}
			return
		}
		c, err := metadata.NewForConfig(w.RESTConfig())
		if err != nil {
			w.t.Helper()
			w.t.Fatalf("fixture.Metadata: %v", err)
		}
		w.metadataClient = c
	})
	return w.metadataClient
}

// Discovery is fixture.Fixture.Discovery.
func (w *World) Discovery() discovery.DiscoveryInterface {
	w.discoveryOnce.Do(func() {
		w.discoveryClient = newWorldDiscovery(w)
	})
	return w.discoveryClient
}

// Scales is fixture.Fixture.Scales.
func (w *World) Scales() scale.ScalesGetter {
	c := &fakescale.FakeScaleClient{}
	c.AddReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		gvr := a.GetResource()
		if gvr.Version == "" {
			resolved, err := w.RESTMapper().ResourceFor(gvr)
			if err != nil {
				return true, nil, err
			}
			gvr = resolved
		}
		switch act := a.(type) {
		case clienttesting.GetActionImpl:
			act.Resource = gvr
			a = act
		case clienttesting.UpdateActionImpl:
			act.Resource = gvr
			a = act
		case clienttesting.PatchActionImpl:
			act.Resource = gvr
			a = act
		default:
			return true, nil, fmt.Errorf("fixture: the scale client made a %s request, which it never makes", a.GetVerb())
		}
		obj, err := w.Invoke(a)
		if err != nil {
			return true, nil, err
		}
		if _, ok := obj.(*autoscalingv1.Scale); !ok && obj != nil {
			s := &autoscalingv1.Scale{}
			if err := w.Scheme().Convert(obj, s, nil); err != nil {
				return true, nil, fmt.Errorf("fixture: the answer to a scale request is a %T: %v", obj, err)
			}
			obj = s
		}
		return true, obj, nil
	})
	return c
}
