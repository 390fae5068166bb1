package clients

import (
	"fmt"
	"reflect"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/scale"
	fakescale "k8s.io/client-go/scale/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/internal/apiserver"
	"github.com/ctrltest/ctrltest/internal/encoded"
	"github.com/ctrltest/ctrltest/internal/resources"
)

// Host is the world the clients serve: its one request path and what it
// knows of types and resources.
type Host interface {
	// Invoke and InvokeWatch serve a request as the registered clientset
	// that serves its resource would (fixture.Fixture.Invoke).
	Invoke(a clienttesting.Action) (runtime.Object, error)
	InvokeWatch(a clienttesting.Action) (watch.Interface, error)
	// Unrecorded serves a read without the request log or the test's
	// reactors; ok is false when no one serves it.
	Unrecorded(a clienttesting.Action) (runtime.Object, bool)
	// Refused records a request kube-apiserver refuses before serving it.
	Refused(a clienttesting.Action)
	// Info describes a registered resource, InfoOf the resource of an
	// object; nil when none serves it.
	Info(gvr schema.GroupVersionResource) *resources.Info
	InfoOf(obj runtime.Object) *resources.Info
	// Tables are the registrations' resources, in order.
	Tables() []*resources.Table
	// Subresources are the subresources other than status the world
	// serves of a resource; served is false when it serves none (the bare
	// fakes).
	Subresources(in *resources.Info) (subs []apiserver.Subresource, served bool)
	Scheme() *runtime.Scheme
	RESTMapper() meta.RESTMapper
	// RESTConfig is a real server's configuration; nil on the fakes.
	RESTConfig() *rest.Config
}

// Clients are a fixture's clients other than the registered clientsets,
// made on first use.
type Clients struct {
	host                                     Host
	dynamicOnce, metadataOnce, discoveryOnce sync.Once
	dynamicClient                            dynamic.Interface
	dynamicErr                               error
	metadataClient                           metadata.Interface
	metadataErr                              error
	discoveryClient                          discovery.DiscoveryInterface
	// fieldsV1 remembers the unstructured form of managed fields (see
	// ToUnstructured).
	fieldsV1 encoded.FieldsV1Memo
}

// New makes the clients of host.
func New(host Host) *Clients { return &Clients{host: host} }

// Dynamic is fixture.Fixture.Dynamic.
func (c *Clients) Dynamic() (dynamic.Interface, error) {
	c.dynamicOnce.Do(func() {
		config := c.host.RESTConfig()
		if config == nil {
			c.dynamicClient = &worldDynamic{c: c}
			return
		}
		c.dynamicClient, c.dynamicErr = dynamic.NewForConfig(config)
	})
	return c.dynamicClient, c.dynamicErr
}

// Metadata is fixture.Fixture.Metadata.
func (c *Clients) Metadata() (metadata.Interface, error) {
	c.metadataOnce.Do(func() {
		config := c.host.RESTConfig()
		if config == nil {
			c.metadataClient = &worldMetadata{c: c}
			return
		}
		c.metadataClient, c.metadataErr = metadata.NewForConfig(config)
	})
	return c.metadataClient, c.metadataErr
}

// Discovery is fixture.Fixture.Discovery.
func (c *Clients) Discovery() discovery.DiscoveryInterface {
	c.discoveryOnce.Do(func() {
		c.discoveryClient = newWorldDiscovery(c.host)
	})
	return c.discoveryClient
}

// Scales is fixture.Fixture.Scales.
func (c *Clients) Scales() scale.ScalesGetter {
	sc := &fakescale.FakeScaleClient{}
	sc.AddReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		gvr := a.GetResource()
		if gvr.Version == "" {
			resolved, err := c.host.RESTMapper().ResourceFor(gvr)
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
		obj, err := c.host.Invoke(a)
		if err != nil {
			return true, nil, err
		}
		if _, ok := obj.(*autoscalingv1.Scale); !ok && obj != nil {
			s := &autoscalingv1.Scale{}
			if err := c.host.Scheme().Convert(obj, s, nil); err != nil {
				return true, nil, fmt.Errorf("fixture: the answer to a scale request is a %T: %v", obj, err)
			}
			obj = s
		}
		return true, obj, nil
	})
	return sc
}

// ToUnstructured is encoded.FieldsV1Memo.ToUnstructured with the clients' memo.
func (c *Clients) ToUnstructured(obj runtime.Object) (map[string]any, error) {
	return c.fieldsV1.ToUnstructured(obj)
}

func isNil(obj runtime.Object) bool {
	v := reflect.ValueOf(obj)
	return obj == nil || v.Kind() == reflect.Pointer && v.IsNil()
}
