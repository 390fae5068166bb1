package ctrlruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
)

// Option configures a client of [NewClient].
type Option interface{ apply(*settings) }

type optionFunc func(*settings)

func (o optionFunc) apply(s *settings) { o(s) }

type settings struct {
	watching []client.Object
	indexes  []index
	cached   bool
	noDeepCp bool
}

// index is a field index, as client.FieldIndexer.IndexField registers one.
type index struct {
	obj     client.Object
	field   string
	extract client.IndexerFunc
}

// WithIndex registers a field index, as the manager's
// GetFieldIndexer().IndexField does (and controller-runtime's fake client's
// WithIndex): List with client.MatchingFields{field: value} returns the
// objects of obj's type whose extract yields value. A List by a field
// without an index fails with an error that names the WithIndex call to add.
func WithIndex(obj client.Object, field string, extract client.IndexerFunc) Option {
	return optionFunc(func(s *settings) { s.indexes = append(s.indexes, index{obj, field, extract}) })
}

// Cached makes the client read as the manager's client does: from the
// informers' view of the world (the fixture's informer indexers, brought
// up to date between syncs, not within one), returning deep copies. Its
// reads are not requests: they are not recorded. Writes go to the world.
func Cached() Option { return optionFunc(func(s *settings) { s.cached = true }) }

// Uncached undoes an earlier Cached: the client reads straight from the
// world, so its reads are recorded requests (Row.WantReads). Wire's
// clients are cached unless its options hold Uncached.
func Uncached() Option { return optionFunc(func(s *settings) { s.cached = false }) }

// UnsafeDisableDeepCopy makes a Cached client return the cache's own
// objects, as controller-runtime's cache.Options UnsafeDisableDeepCopy does:
// a reconciler that changes one changes the cache, and the fixture's
// cache-mutation check fails the sync.
func UnsafeDisableDeepCopy() Option { return optionFunc(func(s *settings) { s.noDeepCp = true }) }

// Watching names the types a Cached client's cache holds from the start,
// as a manager's cache holds those of the controller's watches (For, Owns,
// Watches) before the first reconcile. The cache-mutation check covers the
// caches that exist when a sync starts, so name here the types a
// reconciler reads; other types get a cache on first read. Wire names
// the types of the fixture's seeds itself.
func Watching(objs ...client.Object) Option {
	return optionFunc(func(s *settings) { s.watching = append(s.watching, objs...) })
}

// Client is a controller-runtime client served by a fixture's world.
type Client struct {
	f       *fixture.Fixture
	scheme  *runtime.Scheme
	mapper  meta.RESTMapper
	indexMu sync.Mutex
	indexes map[schema.GroupVersionKind]map[string]client.IndexerFunc
	cached  bool
	copy    bool
}

var _ client.WithWatch = (*Client)(nil)

// NewClient returns a controller-runtime client served by f's world: each
// request is a client-go testing action served by f.Invoke, so it is
// recorded among the sync's actions, the test's reactors and induced
// failures apply, and the server model answers it, exactly as a request of
// the fixture's clientsets. Typed objects, *unstructured.Unstructured and
// *metav1.PartialObjectMetadata (with their lists) are served; its scheme
// and REST mapper are the fixture's. Bad options fail the test.
func NewClient(f *fixture.Fixture, opts ...Option) *Client {
	f.T().Helper()
	var s settings
	for _, o := range opts {
		if o != nil {
			o.apply(&s)
		}
	}
	c := &Client{f: f, scheme: f.Scheme(), mapper: f.RESTMapper(), cached: s.cached, copy: !s.noDeepCp,
		indexes: map[schema.GroupVersionKind]map[string]client.IndexerFunc{}}
	if s.noDeepCp && !s.cached {
		f.T().Fatalf("ctrlruntime.NewClient: UnsafeDisableDeepCopy needs Cached (a client without a cache always returns copies)")
	}
	for _, ix := range s.indexes {
		if err := c.IndexField(ix.obj, ix.field, ix.extract); err != nil {
			f.T().Fatalf("ctrlruntime.WithIndex: %v", err)
		}
	}
	if c.cached {
		for _, o := range s.watching {
			if err := c.watch(o); err != nil {
				f.T().Fatalf("ctrlruntime.Watching(%T): %v", o, err)
			}
		}
	}
	return c
}

// watch makes the cache of obj's type.
func (c *Client) watch(obj runtime.Object) error {
	r, err := c.resource(obj)
	if err != nil {
		return err
	}
	_, err = adapter.Informer(c.f, r.gvr)
	return err
}

// Scheme returns the fixture's scheme.
func (c *Client) Scheme() *runtime.Scheme { return c.scheme }

// RESTMapper returns the fixture's REST mapper.
func (c *Client) RESTMapper() meta.RESTMapper { return c.mapper }

// GroupVersionKindFor returns obj's kind.
func (c *Client) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	return c.kindOf(obj)
}

// IsObjectNamespaced reports whether obj's resource is namespaced.
func (c *Client) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	r, err := c.resource(obj)
	if err != nil {
		return false, err
	}
	return r.namespaced, nil
}

// kindOf returns the kind of obj, or of a list's items for a list.
func (c *Client) kindOf(obj runtime.Object) (schema.GroupVersionKind, error) {
	return kindFor(c.scheme, obj)
}

// kindFor returns the kind of obj in scheme, or of a list's items for a
// list.
func kindFor(scheme *runtime.Scheme, obj runtime.Object) (schema.GroupVersionKind, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return schema.GroupVersionKind{}, fmt.Errorf("ctrlruntime: nil object")
	}
	var gvk schema.GroupVersionKind
	switch obj.(type) {
	case runtime.Unstructured, *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		gvk = obj.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" {
			return gvk, fmt.Errorf("ctrlruntime: a %T needs its apiVersion and kind (SetGroupVersionKind)", obj)
		}
	default:
		var err error
		if gvk, err = apiutil.GVKForObject(obj, scheme); err != nil {
			return gvk, fmt.Errorf("ctrlruntime: %T is not a type of the fixture's scheme: register its clientset (fixture.WithClientset) or its types (fixture.WithTypes(AddToScheme)): %w", obj, err)
		}
	}
	if meta.IsListType(obj) {
		gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	}
	return gvk, nil
}

// resourceInfo is what a request needs to know of an object's resource.
type resourceInfo struct {
	gvk        schema.GroupVersionKind
	gvr        schema.GroupVersionResource
	namespaced bool
}

func (c *Client) resource(obj runtime.Object) (resourceInfo, error) {
	gvk, err := c.kindOf(obj)
	if err != nil {
		return resourceInfo{}, err
	}
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return resourceInfo{}, fmt.Errorf("ctrlruntime: no registered clientset serves %v: register its clientset (fixture.WithClientset) or its types (fixture.WithTypes): %w", gvk, err)
	}
	return resourceInfo{gvk: gvk, gvr: m.Resource, namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}

func (r resourceInfo) ns(namespace string) string {
	if !r.namespaced {
		return ""
	}
	return namespace
}

// Get reads the object key names into obj.
func (c *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	r, err := c.resource(obj)
	if err != nil {
		return err
	}
	o := (&client.GetOptions{}).ApplyOptions(opts)
	if c.cached {
		return c.cacheGet(r, key, obj, o)
	}
	ans, err := adapter.Invoke(c.f, clienttesting.NewGetActionWithOptions(r.gvr, r.ns(key.Namespace), key.Name, *o.AsGetOptions()))
	if err != nil {
		return err
	}
	return c.into(obj, ans, r.gvk)
}

// List lists the objects of list's item type into list.
func (c *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	r, err := c.resource(list)
	if err != nil {
		return err
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	match, err := c.matcher(r, o)
	if err != nil {
		return err
	}
	if c.cached {
		return c.cacheList(r, list, o, match)
	}
	ans, err := adapter.Invoke(c.f, clienttesting.NewListActionWithOptions(r.gvr, r.gvk, r.ns(o.Namespace), *o.AsListOptions()))
	if err != nil {
		return err
	}
	items, err := meta.ExtractList(ans)
	if err != nil {
		return err
	}
	var kept []runtime.Object
	for _, it := range items {
		if ok, err := match(it); err != nil {
			return err
		} else if ok {
			kept = append(kept, it)
		}
	}
	lm, _ := meta.ListAccessor(ans)
	return c.intoList(list, kept, r.gvk, lm)
}

// writeObject returns the object a write sends: a copy of obj; an error
// for metadata-only objects, which cannot be written whole.
func (c *Client) writeObject(obj client.Object, verb string) (runtime.Object, error) {
	if _, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return nil, fmt.Errorf("ctrlruntime: cannot %s a *metav1.PartialObjectMetadata (it holds metadata only); use a typed or unstructured object, or Patch", verb)
	}
	out := obj.DeepCopyObject()
	if u, ok := out.(*unstructured.Unstructured); ok && u.GetKind() == "" {
		return nil, fmt.Errorf("ctrlruntime: an unstructured object needs its apiVersion and kind")
	}
	return out, nil
}

// Create creates obj and reads the server's answer back into it.
func (c *Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	r, err := c.resource(obj)
	if err != nil {
		return err
	}
	o := (&client.CreateOptions{}).ApplyOptions(opts)
	send, err := c.writeObject(obj, "create")
	if err != nil {
		return err
	}
	ans, err := adapter.Invoke(c.f, clienttesting.NewCreateActionWithOptions(r.gvr, r.ns(obj.GetNamespace()), send, *o.AsCreateOptions()))
	if err != nil {
		return err
	}
	return c.into(obj, ans, r.gvk)
}

// Update updates obj and reads the server's answer back into it.
func (c *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return c.update(obj, "", nil, (&client.UpdateOptions{}).ApplyOptions(opts))
}

func (c *Client) update(obj client.Object, sub string, body client.Object, o *client.UpdateOptions) error {
	r, err := c.resource(obj)
	if err != nil {
		return err
	}
	target := obj
	if body != nil {
		target = body
	}
	send, err := c.writeObject(target, "update")
	if err != nil {
		return err
	}
	var action clienttesting.Action
	if sub == "" {
		action = clienttesting.NewUpdateActionWithOptions(r.gvr, r.ns(obj.GetNamespace()), send, *o.AsUpdateOptions())
	} else {
		action = clienttesting.NewUpdateSubresourceActionWithOptions(r.gvr, sub, r.ns(obj.GetNamespace()), send, *o.AsUpdateOptions())
	}
	ans, err := adapter.Invoke(c.f, action)
	if err != nil {
		return err
	}
	if body != nil {
		bk, _ := c.kindOf(body)
		return c.into(body, ans, bk)
	}
	return c.into(obj, ans, r.gvk)
}

// Patch patches obj and reads the server's answer back into it.
func (c *Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return c.patch(obj, "", nil, patch, (&client.PatchOptions{}).ApplyOptions(opts))
}

func (c *Client) patch(obj client.Object, sub string, body client.Object, patch client.Patch, o *client.PatchOptions) error {
	r, err := c.resource(obj)
	if err != nil {
		return err
	}
	if patch == nil {
		return fmt.Errorf("ctrlruntime: Patch of %s %s: nil patch", r.gvk.Kind, obj.GetName())
	}
	src := obj
	if body != nil {
		src = body
	}
	data, err := patch.Data(src)
	if err != nil {
		return err
	}
	var subs []string
	if sub != "" {
		subs = []string{sub}
	}
	ans, err := adapter.Invoke(c.f, clienttesting.NewPatchSubresourceActionWithOptions(r.gvr, r.ns(obj.GetNamespace()), obj.GetName(), patch.Type(), data, *o.AsPatchOptions(), subs...))
	if err != nil {
		return err
	}
	if body != nil {
		bk, _ := c.kindOf(body)
		return c.into(body, ans, bk)
	}
	return c.into(obj, ans, r.gvk)
}

// Apply applies an apply configuration (server-side apply) and reads the
// server's answer back into it.
func (c *Client) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return c.apply(obj, "", (&client.ApplyOptions{}).ApplyOptions(opts))
}

func (c *Client) apply(obj runtime.ApplyConfiguration, sub string, o *client.ApplyOptions) error {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return fmt.Errorf("ctrlruntime: Apply: nil apply configuration")
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("ctrlruntime: Apply: %v", err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return fmt.Errorf("ctrlruntime: Apply: the apply configuration needs its apiVersion, kind and name: %v", err)
	}
	r, err := c.resource(u)
	if err != nil {
		return err
	}
	if u.GetName() == "" {
		return apierrors.NewBadRequest(fmt.Sprintf("ctrlruntime: Apply of a %s without a name", r.gvk.Kind))
	}
	var subs []string
	if sub != "" {
		subs = []string{sub}
	}
	ans, err := adapter.Invoke(c.f, clienttesting.NewPatchSubresourceActionWithOptions(r.gvr, r.ns(u.GetNamespace()), u.GetName(), types.ApplyPatchType, data, *o.AsPatchOptions(), subs...))
	if err != nil {
		return err
	}
	out, err := json.Marshal(ans)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, obj)
}

// Delete deletes obj.
func (c *Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	r, err := c.resource(obj)
	if err != nil {
		return err
	}
	o := (&client.DeleteOptions{}).ApplyOptions(opts)
	_, err = adapter.Invoke(c.f, clienttesting.NewDeleteActionWithOptions(r.gvr, r.ns(obj.GetNamespace()), obj.GetName(), *o.AsDeleteOptions()))
	return err
}

// DeleteAllOf deletes the objects of obj's type the options select.
func (c *Client) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	r, err := c.resource(obj)
	if err != nil {
		return err
	}
	o := (&client.DeleteAllOfOptions{}).ApplyOptions(opts)
	_, err = adapter.Invoke(c.f, clienttesting.NewDeleteCollectionActionWithOptions(r.gvr, r.ns(o.Namespace), *o.AsDeleteOptions(), *o.AsListOptions()))
	return err
}

// Watch watches the objects of list's item type. Its events carry objects
// of list's representation (typed, unstructured or metadata only).
func (c *Client) Watch(ctx context.Context, list client.ObjectList, opts ...client.ListOption) (watch.Interface, error) {
	r, err := c.resource(list)
	if err != nil {
		return nil, err
	}
	o := (&client.ListOptions{}).ApplyOptions(opts)
	w, err := adapter.InvokeWatch(c.f, clienttesting.NewWatchActionWithOptions(r.gvr, r.ns(o.Namespace), *o.AsListOptions()))
	if err != nil {
		return nil, err
	}
	var conv func() client.Object
	switch list.(type) {
	case *unstructured.UnstructuredList:
		conv = func() client.Object { return &unstructured.Unstructured{} }
	case *metav1.PartialObjectMetadataList:
		conv = func() client.Object { return &metav1.PartialObjectMetadata{} }
	default:
		return w, nil
	}
	return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
		if _, ok := e.Object.(*metav1.Status); ok || e.Object == nil {
			return e, true
		}
		out := conv()
		if err := c.into(out, e.Object, r.gvk); err == nil {
			e.Object = out
		}
		return e, true
	}), nil
}

// Status returns the client of the status subresource.
func (c *Client) Status() client.SubResourceWriter { return c.SubResource("status") }

// SubResource returns the client of a subresource ("status", "scale",
// "eviction", ...).
func (c *Client) SubResource(sub string) client.SubResourceClient {
	return &subResourceClient{c: c, sub: sub}
}

type subResourceClient struct {
	c   *Client
	sub string
}

// Get reads obj's subresource into subResource.
func (s *subResourceClient) Get(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceGetOption) error {
	r, err := s.c.resource(obj)
	if err != nil {
		return err
	}
	o := (&client.SubResourceGetOptions{}).ApplyOptions(opts)
	ans, err := adapter.Invoke(s.c.f, clienttesting.NewGetSubresourceActionWithOptions(r.gvr, r.ns(obj.GetNamespace()), s.sub, obj.GetName(), *o.AsGetOptions()))
	if err != nil {
		return err
	}
	sk, err := s.c.kindOf(subResource)
	if err != nil {
		sk = ans.GetObjectKind().GroupVersionKind()
	}
	return s.c.into(subResource, ans, sk)
}

// Create creates subResource for obj (an eviction, a token request).
func (s *subResourceClient) Create(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	r, err := s.c.resource(obj)
	if err != nil {
		return err
	}
	o := (&client.SubResourceCreateOptions{}).ApplyOptions(opts)
	send, err := s.c.writeObject(subResource, "create")
	if err != nil {
		return err
	}
	ans, err := adapter.Invoke(s.c.f, clienttesting.NewCreateSubresourceActionWithOptions(r.gvr, obj.GetName(), s.sub, r.ns(obj.GetNamespace()), send, *o.AsCreateOptions()))
	if err != nil {
		return err
	}
	if ans == nil {
		return nil
	}
	sk, _ := s.c.kindOf(subResource)
	return s.c.into(subResource, ans, sk)
}

// Update writes the subresource of obj (or the body given with
// client.WithSubResourceBody).
func (s *subResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	o := (&client.SubResourceUpdateOptions{}).ApplyOptions(opts)
	return s.c.update(obj, s.sub, o.SubResourceBody, &o.UpdateOptions)
}

// Patch patches the subresource of obj.
func (s *subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	o := (&client.SubResourcePatchOptions{}).ApplyOptions(opts)
	return s.c.patch(obj, s.sub, o.SubResourceBody, patch, &o.PatchOptions)
}

// Apply applies an apply configuration to the subresource.
func (s *subResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	o := (&client.SubResourceApplyOptions{}).ApplyOpts(opts)
	body := obj
	if o.SubResourceBody != nil {
		body = o.SubResourceBody
	}
	return s.c.apply(body, s.sub, &o.ApplyOptions)
}

// into copies the answer src (a typed object of the world) into dst, in
// dst's representation. gvk is dst's kind.
func (c *Client) into(dst, src runtime.Object, gvk schema.GroupVersionKind) error {
	if src == nil || reflect.ValueOf(src).IsNil() {
		return fmt.Errorf("ctrlruntime: the server answered %v with no object", gvk)
	}
	switch d := dst.(type) {
	case *unstructured.Unstructured:
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(src)
		if err != nil {
			return err
		}
		d.SetUnstructuredContent(content)
		d.SetGroupVersionKind(gvk)
		return nil
	case *metav1.PartialObjectMetadata:
		om, err := objectMeta(src)
		if err != nil {
			return err
		}
		d.ObjectMeta = *om
		d.SetGroupVersionKind(gvk)
		return nil
	}
	dv, sv := reflect.ValueOf(dst), reflect.ValueOf(src)
	if dv.Type() == sv.Type() {
		dv.Elem().Set(sv.Elem())
		dst.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{}) // typed answers carry no apiVersion and kind, as from a real server
		return nil
	}
	if u, ok := src.(runtime.Unstructured); ok {
		return runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), dst)
	}
	if err := c.scheme.Convert(src, dst, nil); err != nil {
		return fmt.Errorf("ctrlruntime: converting the server's %T into %T: %v", src, dst, err)
	}
	return nil
}

// intoList fills list with items (typed objects of the world) in list's
// representation.
func (c *Client) intoList(list client.ObjectList, items []runtime.Object, gvk schema.GroupVersionKind, lm metav1.ListInterface) error {
	if lm != nil {
		list.SetResourceVersion(lm.GetResourceVersion())
	}
	switch l := list.(type) {
	case *unstructured.UnstructuredList:
		l.Items = make([]unstructured.Unstructured, len(items))
		for i, it := range items {
			if err := c.into(&l.Items[i], it, gvk); err != nil {
				return err
			}
		}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		return nil
	case *metav1.PartialObjectMetadataList:
		l.Items = make([]metav1.PartialObjectMetadata, len(items))
		for i, it := range items {
			if err := c.into(&l.Items[i], it, gvk); err != nil {
				return err
			}
		}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		return nil
	}
	out := make([]runtime.Object, len(items))
	for i, it := range items {
		n, err := c.scheme.New(gvk)
		if err != nil {
			return err
		}
		if err := c.into(n, it, gvk); err != nil {
			return err
		}
		out[i] = n
	}
	if err := meta.SetList(list, out); err != nil {
		return fmt.Errorf("ctrlruntime: filling a %T: %v", list, err)
	}
	list.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return nil
}

// objectMeta returns a copy of obj's metadata.
func objectMeta(obj runtime.Object) (*metav1.ObjectMeta, error) {
	if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if om, ok := a.GetObjectMeta().(*metav1.ObjectMeta); ok {
			return om.DeepCopy(), nil
		}
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	om := &metav1.ObjectMeta{}
	m, _ := content["metadata"].(map[string]any)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, om); err != nil {
		return nil, fmt.Errorf("ctrlruntime: the metadata of a %T: %v", obj, err)
	}
	return om, nil
}
