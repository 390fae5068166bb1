package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/ctrltest/ctrltest/internal/encoded"
)

// Store is where the model keeps one resource's objects: client-go's
// ObjectTracker (its simple tracker), whose watchers feed informers. The
// store must keep copies of what it is given and return copies: the model
// hands the objects it stored to the client.
type Store interface {
	Get(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.GetOptions) (runtime.Object, error)
	List(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns string, opts ...metav1.ListOptions) (runtime.Object, error)
	Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error
	Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error
	Delete(gvr schema.GroupVersionResource, ns, name string, opts ...metav1.DeleteOptions) error
}

// FieldManager tracks managed fields and computes server-side applies
// (k8s.io/apimachinery/pkg/util/managedfields.FieldManager, one per kind).
// Apply and Update leave liveObj as it is (the model goes on with it as
// the stored object); Apply returns an object that shares nothing with it.
// Update may change newObj (it may set its managed fields and return it):
// the model passes a copy of its own.
type FieldManager interface {
	Update(liveObj, newObj runtime.Object, manager string) (runtime.Object, error)
	Apply(liveObj, appliedObj runtime.Object, manager string, force bool) (runtime.Object, error)
}

// SubresourceFieldManager is a FieldManager that has a field manager for
// writes of each subresource ("status", "scale"), whose managed fields
// entries name the subresource, as kube-apiserver's do.
type SubresourceFieldManager interface {
	FieldManager
	Subresource(sub string) (FieldManager, error)
}

// fieldsFor is the field manager of r's writes of subresource sub ("" for
// the resource itself): r.Fields (nil when there is none), or r.Applier
// for an apply.
func (r *Resource) fieldsFor(sub string, apply bool) (FieldManager, error) {
	fm := r.Fields
	if fm == nil && apply {
		fm = r.Applier
	}
	if sf, ok := fm.(SubresourceFieldManager); ok && sub != "" {
		return sf.Subresource(sub)
	}
	return fm, nil
}

// userAgentManager is the field manager kube-apiserver names for a write
// that names none: the prefix of the request's user agent before its first
// "/", as client-go's default user agent makes it (the program's name).
var userAgentManager = sync.OnceValue(func() string {
	ua := strings.Split(rest.DefaultKubernetesUserAgent(), "/")[0]
	var b strings.Builder
	for _, r := range ua {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len() >= 128 { // validation.FieldManagerMaxLength
			break
		}
		b.WriteRune(r)
	}
	return b.String()
})

// managerOf is the request's field manager, or the user agent's.
func managerOf(manager string) string {
	if manager != "" {
		return manager
	}
	return userAgentManager()
}

// Resource is one resource the model serves.
type Resource struct {
	GVR schema.GroupVersionResource
	GVK schema.GroupVersionKind
	// Namespaced is false for cluster-scoped resources.
	Namespaced bool
	// Status is true when the resource has a status subresource.
	Status bool
	// Custom is true for a custom resource (the CRD strategy applies).
	Custom bool
	// Store holds the objects.
	Store Store
	// New makes an empty object of the kind.
	New func() (runtime.Object, error)
	// Fields, when set, tracks managed fields and serves server-side
	// apply.
	Fields FieldManager
	// Applier, when set and Fields is not, serves server-side apply only.
	// Without either an apply is refused.
	Applier FieldManager
	// SelectableFields are the JSON paths (".spec.color") of the fields a
	// field selector may name beside metadata.name and
	// metadata.namespace: a custom resource's CRD selectableFields.
	// Built-in kinds have kube-apiserver's own (see Select).
	SelectableFields []string
	// Scale, when set, is a custom resource's scale subresource (its
	// CRD's subresources.scale). Built-in kinds that have one
	// (Deployments, ReplicaSets, StatefulSets, ReplicationControllers)
	// need none.
	Scale *ScaleSubresource
	// Lookup returns another resource of the same world, for requests
	// that read or write more than one (a Pod's eviction reads and
	// writes PodDisruptionBudgets); nil when there is none.
	Lookup func(gvr schema.GroupVersionResource) (*Resource, error)
}

func (r *Resource) strategy() strategy {
	if r.Custom {
		return customStrategy
	}
	if b := r.builtinOf(); b != nil {
		return b.strategy
	}
	return strategy{}
}

// Model is one world's API server: it answers the write requests of every
// client of the world as kube-apiserver would, and keeps the world's
// resourceVersion counter. It is safe for concurrent use: writes are
// serialized, as etcd serializes them.
type Model struct {
	// Now is the server's clock (creation and deletion timestamps).
	Now func() time.Time
	// Written, when set, is told of each object a request changed beside
	// the one it names (the PodDisruptionBudget an eviction updates), so
	// that readers of that resource can catch up. It is called with the
	// model's lock held: it must not call the model.
	Written func(r *Resource, namespace, name string)
	// Observe, when set, is told of every change of the stored world as a
	// watch sends it, in resourceVersion order: watch.Added after a
	// create, watch.Modified after a write that changed an object, and
	// watch.Deleted with the object's last state at the resourceVersion of
	// its deletion (as kube-apiserver's etcd3 watcher sends it). The object
	// is a copy of the caller's own. Dry runs change nothing and are not
	// observed. It is called with the model's lock held: it must not call
	// the model.
	Observe func(r *Resource, ev watch.Event)

	// Admission, when set, defaults and validates the objects of writes
	// (see admission.go).
	Admission *Admission
	// Namespaces keeps deleted namespaces Terminating until their
	// finalizers are gone, as kube-apiserver does (see namespaces.go):
	// for a world whose namespace controller runs.
	Namespaces bool

	// seedTime is the creationTimestamp of seeds that have none.
	seedTime metav1.Time

	mu       sync.Mutex
	revision int64
	uids     int64
	names    int64
	// warnings are the warnings of the write being answered (DoWarned).
	warnings []string
}

// NewModel returns a model whose first write gets resourceVersion
// firstRevision+1 (seeds take the revisions up to firstRevision, see
// SeedRevision).
func NewModel(now func() time.Time, firstRevision int64) *Model {
	m := &Model{Now: now, revision: firstRevision}
	m.seedTime = m.now()
	return m
}

// Reserve makes sure that writes get resourceVersions above n (those up
// to n are the seeds').
func (m *Model) Reserve(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revision = max(m.revision, n)
}

// SeedUID is the uid the model gives a seed object that has none: a
// deterministic function of its kind, namespace and name, so that it does
// not depend on the order in which seeds are stored.
func SeedUID(gk schema.GroupKind, namespace, name string) types.UID {
	h := fnv.New128a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", gk.Group, gk.Kind, namespace, name)
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x40 // version 4 layout, as the server's uids
	b[8] = b[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]))
}

// Seed fills what the server sets on an object stored in it and the seed
// lacks: a uid (SeedUID), a creationTimestamp (the model's clock when it
// was made), generation 1 for a resource
// that tracks it, and the resourceVersion revision (each seed's own,
// below the model's first write). obj is changed: pass a copy.
func (m *Model) Seed(r *Resource, obj runtime.Object, revision int64) error {
	om, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if om.GetUID() == "" {
		om.SetUID(SeedUID(r.GVK.GroupKind(), om.GetNamespace(), om.GetName()))
	}
	if ts := om.GetCreationTimestamp(); ts.IsZero() {
		om.SetCreationTimestamp(m.seedTime)
	}
	if om.GetGeneration() == 0 && r.strategy().generation != genNone {
		om.SetGeneration(1)
	}
	if m.Namespaces && isNamespaces(r) {
		seedNamespace(obj)
	}
	om.SetResourceVersion(strconv.FormatInt(revision, 10))
	serverForm(r, obj)
	return nil
}

func (m *Model) now() metav1.Time {
	return metav1.NewTime(m.Now().UTC().Truncate(time.Second))
}

// next returns the next resourceVersion. The caller holds m.mu.
func (m *Model) next() string {
	m.revision++
	return strconv.FormatInt(m.revision, 10)
}

// Handles reports whether the model answers action: writes to a resource
// or its status subresource, updates and patches of the scale
// subresource, and creates of a pod's eviction. Reads (but a get of the
// scale subresource: see Read), watches and other subresources are the
// store's (or a reactor's).
func Handles(action clienttesting.Action) bool {
	sub := action.GetSubresource()
	switch action.GetVerb() {
	case "create":
		return sub == "" || sub == "status" || sub == "eviction"
	case "update":
		return sub == "" || sub == "status" || sub == "scale" || sub == "finalize"
	case "patch":
		return sub == "" || sub == "status" || sub == "scale"
	case "delete", "delete-collection":
		return sub == "" || sub == "status"
	}
	return false
}

// Do answers a write request as kube-apiserver would. It returns the
// object the server would return and whether the stored world changed: a
// write that changes nothing (an update that sends back what is stored,
// a patch that patches nothing) keeps the object and its resourceVersion,
// and no watch event is sent.
func (m *Model) Do(r *Resource, action clienttesting.Action) (runtime.Object, bool, error) {
	obj, changed, _, err := m.DoWarned(r, action)
	return obj, changed, err
}

// DoWarned is Do, and returns the warnings the server would give the
// client (Admission.Warn's, on every write it accepted: several for a
// write that creates through an update, none for a refused one).
func (m *Model) DoWarned(r *Resource, action clienttesting.Action) (runtime.Object, bool, []string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.warnings = nil
	obj, changed, err := m.doLocked(r, action)
	warnings := m.warnings
	m.warnings = nil
	if err != nil {
		warnings = nil
	}
	return obj, changed, warnings, err
}

// doLocked is Do; the caller holds m.mu.
func (m *Model) doLocked(r *Resource, action clienttesting.Action) (runtime.Object, bool, error) {
	ns, sub := action.GetNamespace(), action.GetSubresource()
	if sub == "status" && !r.Status {
		return nil, false, noSubresource(r, action)
	}
	if dryRun(action) {
		// The server runs the request to its end and stores nothing.
		revision, uids, names := m.revision, m.uids, m.names
		defer func() { m.revision, m.uids, m.names = revision, uids, names }()
		dry := *r
		dry.Store = dryStore{r.Store}
		obj, _, err := m.do(&dry, action, ns, sub, true)
		if err == nil && obj != nil {
			// The etcd3 store answers a dry run with the revision it
			// read: none for an object it would create, the stored one
			// for an object it would change.
			if om, merr := meta.Accessor(obj); merr == nil && om.GetName() != "" {
				stored, gerr := r.Store.Get(r.GVR, ns, om.GetName())
				switch sm, serr := meta.Accessor(stored); {
				case gerr == nil && serr == nil:
					om.SetResourceVersion(sm.GetResourceVersion())
				case action.GetVerb() != "update":
					om.SetResourceVersion("")
				default:
					// An update that creates (create on update) answers
					// with the resourceVersion the request sent: the
					// registry's create through an update keeps it
					// (rest.WipeObjectMetaSystemFields does not wipe
					// it), and a dry run stores no revision over it.
					om.SetResourceVersion(requestRV(action))
				}
			}
		}
		return obj, false, err
	}
	return m.do(r, action, ns, sub, false)
}

func (m *Model) do(r *Resource, action clienttesting.Action, ns, sub string, dry bool) (runtime.Object, bool, error) {
	if sub == "scale" {
		return m.writeScale(r, ns, action)
	}
	switch a := action.(type) {
	case clienttesting.CreateActionImpl:
		if sub == "eviction" && a.GetObject() != nil {
			return m.evict(r, ns, a, dry)
		}
		if sub != "" {
			return nil, false, noSubresource(r, action)
		}
		obj, err := m.create(r, ns, a.GetObject().DeepCopyObject(), write{manager: a.CreateOptions.FieldManager})
		return obj, err == nil, err
	case clienttesting.UpdateActionImpl:
		if sub == "finalize" {
			if !isNamespaces(r) {
				return nil, false, noSubresource(r, action)
			}
			return m.finalizeNamespace(r, a)
		}
		return m.update(r, ns, sub, a.GetObject().DeepCopyObject(), write{manager: a.UpdateOptions.FieldManager})
	case clienttesting.PatchActionImpl:
		if a.GetPatchType() == types.ApplyPatchType {
			return m.apply(r, ns, sub, a)
		}
		return m.patch(r, ns, sub, a)
	case clienttesting.DeleteActionImpl:
		if m.Namespaces && isNamespaces(r) {
			if obj, changed, handled, err := m.deleteNamespace(r, a.GetName(), a.DeleteOptions); handled {
				return obj, changed, err
			}
		}
		return m.delete(r, ns, a.GetName(), a.DeleteOptions)
	case clienttesting.DeleteCollectionActionImpl:
		return m.deleteCollection(r, ns, a)
	}
	return nil, false, apierrors.NewMethodNotSupported(r.GVR.GroupResource(), action.GetVerb())
}

// requestRV is the resourceVersion of the object an update sends.
func requestRV(action clienttesting.Action) string {
	a, ok := action.(clienttesting.UpdateActionImpl)
	if !ok || a.GetObject() == nil {
		return ""
	}
	om, err := meta.Accessor(a.GetObject())
	if err != nil {
		return ""
	}
	return om.GetResourceVersion()
}

// dryRun reports whether a write asks for a dry run.
func dryRun(action clienttesting.Action) bool {
	switch a := action.(type) {
	case clienttesting.CreateActionImpl:
		return len(a.CreateOptions.DryRun) > 0 || evictionDryRun(a)
	case clienttesting.UpdateActionImpl:
		return len(a.UpdateOptions.DryRun) > 0
	case clienttesting.PatchActionImpl:
		return len(a.PatchOptions.DryRun) > 0
	case clienttesting.DeleteActionImpl:
		return len(a.DeleteOptions.DryRun) > 0
	case clienttesting.DeleteCollectionActionImpl:
		return len(a.DeleteOptions.DryRun) > 0
	}
	return false
}

// dryStore reads from a store and writes nothing.
type dryStore struct{ Store }

func (dryStore) Create(schema.GroupVersionResource, runtime.Object, string, ...metav1.CreateOptions) error {
	return nil
}

func (dryStore) Update(schema.GroupVersionResource, runtime.Object, string, ...metav1.UpdateOptions) error {
	return nil
}

func (dryStore) Delete(schema.GroupVersionResource, string, string, ...metav1.DeleteOptions) error {
	return nil
}

func noSubresource(r *Resource, action clienttesting.Action) error {
	name := ""
	if n, ok := action.(interface{ GetName() string }); ok {
		name = n.GetName()
	}
	err := apierrors.NewNotFound(r.GVR.GroupResource(), name)
	if r.Custom {
		// apiextensions-apiserver's handler answers a subresource its
		// CRD does not declare with the resource's NotFound, whether or
		// not the object exists.
		return err
	}
	// A built-in resource has no route for it: the generic 404.
	err.ErrStatus.Message = "the server could not find the requested resource"
	err.ErrStatus.Details = nil
	return err
}

// write describes a write request beside its object.
type write struct {
	// manager is the field manager's name.
	manager string
	// unconditional: a patch or an apply, whose object carries the stored
	// resourceVersion unless the client set one.
	unconditional bool
	// managed: the managed fields are computed already (an apply).
	managed bool
	// scale: a write of the scale subresource, through its parent.
	scale bool
	// stored, when set, is the stored object the request read already (a
	// patch's or an apply's, a copy the model owns and has not changed):
	// the update does not read it again.
	stored runtime.Object
}

// fieldsSub is the subresource whose field manager records the write.
func (w write) fieldsSub(sub string) string {
	if w.scale {
		return "scale"
	}
	return sub
}

func (m *Model) create(r *Resource, ns string, obj runtime.Object, w write) (runtime.Object, error) {
	om, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if om.GetName() == "" && om.GetGenerateName() != "" {
		// The registry's createWithGenerateNameRetry: up to
		// maxNameGenerationCreateAttempts names, each a create of its own
		// that only a taken name fails; the model's names are a counter,
		// so a taken one is known before the create.
		for range maxNameGenerationCreateAttempts {
			m.names++
			om.SetName(fmt.Sprintf("%s%05d", om.GetGenerateName(), m.names))
			if _, err := r.Store.Get(r.GVR, ns, om.GetName()); err != nil {
				break
			}
		}
	}
	if om.GetName() == "" {
		return nil, apierrors.NewInvalid(r.GVK.GroupKind(), "", field.ErrorList{
			field.Required(field.NewPath("metadata", "name"), "name or generateName is required")})
	}
	if r.Namespaced {
		om.SetNamespace(ns)
	}
	if err := m.defaults(r, obj); err != nil {
		return nil, err
	}
	if om.GetResourceVersion() != "" && !w.managed {
		return nil, apierrors.NewInternalError(errors.New("resourceVersion should not be set on objects to be created"))
	}
	// rest.FillObjectMetaSystemFields, then the strategy's PrepareForCreate.
	m.uids++
	om.SetUID(types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", m.uids)))
	om.SetCreationTimestamp(m.now())
	om.SetDeletionTimestamp(nil)
	om.SetDeletionGracePeriodSeconds(nil)
	s := r.strategy()
	var view fieldsView
	if s.fieldsView != nil {
		view = s.fieldsView(om)
	}
	if r.Status && !s.keepStatusOnCreate {
		clearPart(obj, "status")
	}
	if s.generation != genNone {
		om.SetGeneration(1)
	}
	if s.onCreate != nil {
		s.onCreate(obj, om.GetCreationTimestamp())
	}
	if r.Fields != nil && !w.managed {
		empty, err := r.New()
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if obj, err = updateFields(r.Fields, empty, obj, view, managerOf(w.manager)); err != nil {
			return nil, err
		}
		om, _ = meta.Accessor(obj)
	}
	serverForm(r, obj)
	if err := m.validate(r, obj, nil, ""); err != nil {
		return nil, err
	}
	m.warn(r, obj, nil, "")
	// What the store answers, and every read gets, is the object as the
	// server decodes it from storage: defaulted again, after the strategy
	// (a claim whose status the strategy reset reads back Pending).
	if err := m.defaults(r, obj); err != nil {
		return nil, err
	}
	// The store refuses a name that is taken only after the strategy and
	// validation ran (an invalid object is a 422 even so).
	if existing, err := r.Store.Get(r.GVR, ns, om.GetName()); err == nil {
		return nil, alreadyExists(r, om, existing)
	}
	om.SetResourceVersion(m.next())
	if err := r.Store.Create(r.GVR, obj, ns); err != nil {
		return nil, err
	}
	m.observe(r, watch.Added, obj, "")
	return obj, nil // the store keeps a copy of its own
}

// update stores obj over the stored object: the registry's update path
// (resourceVersion precondition, rest.BeforeUpdate with the resource's
// strategy or status strategy, the etcd3 store's no-op check, deletion
// once the last finalizer of a deleted object is gone).
func (m *Model) update(r *Resource, ns, sub string, obj runtime.Object, w write) (runtime.Object, bool, error) {
	om, err := meta.Accessor(obj)
	if err != nil {
		return nil, false, apierrors.NewBadRequest(err.Error())
	}
	old := w.stored
	if old == nil {
		old, err = r.Store.Get(r.GVR, ns, om.GetName())
	}
	if apierrors.IsNotFound(err) && sub == "" && !w.unconditional && !w.scale && r.strategy().createOnUpdate {
		// The strategy allows create on update (Services, Leases, Roles,
		// ...): the store's update of a missing object creates it, as a
		// create would (rest.WipeObjectMetaSystemFields; the request's
		// resourceVersion is no precondition then).
		om.SetResourceVersion("")
		om.SetUID("")
		om.SetCreationTimestamp(metav1.Time{})
		created, err := m.create(r, ns, obj, w)
		return created, err == nil, err
	}
	if err != nil {
		return nil, false, err
	}
	if reflect.TypeOf(obj) != reflect.TypeOf(old) { // the strategies copy parts of one into the other
		return nil, false, apierrors.NewBadRequest(fmt.Sprintf("%s %q is stored as %T; the request sent %T", r.GVR.Resource, om.GetName(), old, obj))
	}
	oldMeta, _ := meta.Accessor(old)
	switch rv := om.GetResourceVersion(); {
	case rv == "" && !w.unconditional && r.strategy().conditionalOnly:
		// The strategy does not allow unconditional updates (custom
		// resources, Leases, PodDisruptionBudgets, ...): the store's
		// error names the resource as a kind.
		return nil, false, apierrors.NewInvalid(schema.GroupKind{Group: r.GVR.Group, Kind: r.GVR.Resource}, om.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), int64(0), "must be specified for an update")})
	case rv != "" && rv != oldMeta.GetResourceVersion():
		return nil, false, apierrors.NewConflict(r.GVR.GroupResource(), om.GetName(),
			errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if uid := om.GetUID(); uid != "" && uid != oldMeta.GetUID() {
		return nil, false, apierrors.NewInvalid(r.GVK.GroupKind(), om.GetName(), field.ErrorList{
			field.Invalid(field.NewPath("metadata", "uid"), uid, "field is immutable")})
	}
	if r.Namespaced {
		om.SetNamespace(ns)
	}
	if err := m.defaults(r, obj); err != nil {
		return nil, false, err
	}
	obj.GetObjectKind().SetGroupVersionKind(old.GetObjectKind().GroupVersionKind())
	var view fieldsView
	if s := r.strategy(); s.fieldsView != nil {
		view = s.fieldsView(om)
	}
	m.prepareForUpdate(r, sub, obj, old)
	// The managed fields of what the strategy kept: the server's field
	// manager ignores the fields the strategy resets (its
	// GetResetFields), a main-resource write's status, a /status write's
	// spec.
	if fm, err := r.fieldsFor(w.fieldsSub(sub), false); err != nil {
		return nil, false, apierrors.NewInternalError(err)
	} else if fm != nil && !w.managed {
		if obj, err = updateFields(fm, old, obj, view, managerOf(w.manager)); err != nil {
			return nil, false, err
		}
		om, _ = meta.Accessor(obj)
	} else if !w.managed {
		keepManagedFields(om, oldMeta)
	}
	if err := noNewFinalizers(r, om, oldMeta); err != nil {
		return nil, false, err
	}
	if err := m.validate(r, obj, old, sub); err != nil {
		return nil, false, err
	}
	m.warn(r, obj, old, sub)
	// Defaulted again, as the server decodes what it stored (see create).
	if err := m.defaults(r, obj); err != nil {
		return nil, false, err
	}
	om.SetResourceVersion(oldMeta.GetResourceVersion())
	serverForm(r, obj)
	keepManagedFieldsTimes(obj, om, old, oldMeta)
	if encoded.Equal(obj, old) {
		return old, false, nil
	}
	// An update that removes the last finalizer of an object being
	// deleted deletes it (registry.ShouldDeleteDuringUpdate).
	if len(om.GetFinalizers()) == 0 && oldMeta.GetDeletionTimestamp() != nil &&
		(oldMeta.GetDeletionGracePeriodSeconds() == nil || *oldMeta.GetDeletionGracePeriodSeconds() == 0) &&
		!heldBySpec(r, obj) {
		return m.remove(r, ns, om.GetName(), obj)
	}
	return m.put(r, ns, obj)
}

// keepManagedFieldsTimes is the registry's
// IgnoreManagedFieldsTimestampsTransformer, after the strategy: a write
// whose only change is the time of managed fields entries (a manager
// that took fields whose values the strategy then restored) keeps the
// stored times, and stays a no-op.
func keepManagedFieldsTimes(obj runtime.Object, om metav1.Object, old runtime.Object, oldMeta metav1.Object) {
	mf, oldMF := om.GetManagedFields(), oldMeta.GetManagedFields()
	if len(mf) != len(oldMF) || len(mf) == 0 {
		return
	}
	changed := false
	for i := range mf { // most writes change no time: look before copying
		if !mf[i].Time.Equal(oldMF[i].Time) {
			changed = true
			break
		}
	}
	if !changed {
		return
	}
	kept := make([]metav1.ManagedFieldsEntry, len(mf))
	for i := range mf {
		kept[i] = *mf[i].DeepCopy()
		if !kept[i].Time.Equal(oldMF[i].Time) {
			kept[i].Time = oldMF[i].Time.DeepCopy()
		}
	}
	if !equality.Semantic.DeepEqual(kept, oldMF) {
		return
	}
	om.SetManagedFields(kept)
	if !encoded.Equal(obj, old) {
		om.SetManagedFields(mf)
	}
}

// updateFields records manager's write of obj over live in its managed
// fields, through fm, as the server's field manager sees obj (view, when
// not nil).
func updateFields(fm FieldManager, live, obj runtime.Object, view fieldsView, manager string) (runtime.Object, error) {
	if view == nil {
		return fm.Update(live, obj, manager)
	}
	om, err := meta.Accessor(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	restore := view(om)
	out, err := fm.Update(live, obj, manager)
	if err != nil {
		return nil, err
	}
	outMeta, err := meta.Accessor(out)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	restore(outMeta)
	return out, nil
}

// prepareForUpdate is rest.BeforeUpdate with the resource's strategy (sub
// "") or status strategy (sub "status").
func (m *Model) prepareForUpdate(r *Resource, sub string, obj, old runtime.Object) {
	om, _ := meta.Accessor(obj)
	oldMeta, _ := meta.Accessor(old)
	om.SetGeneration(oldMeta.GetGeneration())
	s := r.strategy()
	if s.onUpdate != nil {
		s.onUpdate(sub, obj, old, m.now())
	}
	if sub == "status" {
		switch s.statusMeta {
		case resetAllMeta:
			managed := om.GetManagedFields()
			status := obj.DeepCopyObject()
			copyAll(obj, old)
			copyPart(obj, status, "status")
			om.SetManagedFields(managed)
		default:
			copyPart(obj, old, "spec")
			switch s.statusMeta {
			case keepMeta:
			case resetLabels:
				om.SetLabels(oldMeta.GetLabels())
			case resetOwners:
				om.SetOwnerReferences(oldMeta.GetOwnerReferences())
			}
		}
	} else {
		if r.Status {
			copyPart(obj, old, "status")
		}
		bump := false
		switch s.generation {
		case genSpec:
			bump = changedParts(old, obj, []string{"spec"})
		case genSpecOrAnnotations:
			bump = changedParts(old, obj, []string{"spec"}) || !equality.Semantic.DeepEqual(om.GetAnnotations(), oldMeta.GetAnnotations())
		case genTemplate:
			bump = changedParts(old, obj, []string{"template"})
		case genNonMetadata:
			bump = changedParts(old, obj, nil)
		}
		if bump {
			om.SetGeneration(oldMeta.GetGeneration() + 1)
		}
	}
	// What only the server sets.
	if om.GetUID() == "" {
		om.SetUID(oldMeta.GetUID())
	}
	if ts := oldMeta.GetCreationTimestamp(); !ts.IsZero() {
		om.SetCreationTimestamp(ts)
	}
	if oldMeta.GetDeletionTimestamp() != nil {
		om.SetDeletionTimestamp(oldMeta.GetDeletionTimestamp())
	} else {
		om.SetDeletionTimestamp(nil)
	}
	if oldMeta.GetDeletionGracePeriodSeconds() != nil && om.GetDeletionGracePeriodSeconds() == nil {
		om.SetDeletionGracePeriodSeconds(oldMeta.GetDeletionGracePeriodSeconds())
	}
}

// keepManagedFields is what the server's field manager does with the
// managed fields a request sends, for a model that tracks none: none (a
// client that does not know them) keeps the stored ones; a single empty
// entry clears them.
func keepManagedFields(om, oldMeta metav1.Object) {
	switch mf := om.GetManagedFields(); {
	case len(mf) == 0:
		om.SetManagedFields(oldMeta.GetManagedFields())
	case len(mf) == 1 && reflect.DeepEqual(mf[0], metav1.ManagedFieldsEntry{}):
		om.SetManagedFields(nil)
	}
}

// copyAll makes to a copy of from (both of one type).
func copyAll(to, from runtime.Object) {
	if ut, ok := to.(*unstructured.Unstructured); ok {
		ut.Object = from.(*unstructured.Unstructured).DeepCopy().Object
		return
	}
	reflect.ValueOf(to).Elem().Set(reflect.ValueOf(from.DeepCopyObject()).Elem())
}

func (m *Model) patch(r *Resource, ns, sub string, a clienttesting.PatchActionImpl) (runtime.Object, bool, error) {
	// The handler refuses a patch type the resource does not take before
	// it reads the object (a strategic merge patch of a missing custom
	// resource is a 415, not a 404).
	switch pt := a.GetPatchType(); {
	case pt == types.StrategicMergePatchType && r.Custom,
		pt != types.JSONPatchType && pt != types.MergePatchType && pt != types.StrategicMergePatchType:
		return nil, false, unsupportedPatch(pt)
	}
	old, err := r.Store.Get(r.GVR, ns, a.GetName())
	if err != nil {
		return nil, false, err
	}
	original, err := json.Marshal(old)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	var patched []byte
	switch a.GetPatchType() {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(a.GetPatch())
		if err != nil {
			return nil, false, apierrors.NewBadRequest(err.Error())
		}
		if patched, err = p.Apply(original); err != nil {
			// The patcher names no verb nor resource: the message is the
			// generic one (the patch's error is not in the answer).
			return nil, false, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
	case types.MergePatchType:
		if patched, err = jsonpatch.MergePatch(original, a.GetPatch()); err != nil {
			return nil, false, apierrors.NewBadRequest(err.Error())
		}
	case types.StrategicMergePatchType:
		if r.Custom {
			return nil, false, unsupportedPatch(a.GetPatchType())
		}
		schemaObj, err := r.New()
		if err != nil {
			return nil, false, apierrors.NewInternalError(err)
		}
		if patched, err = strategicpatch.StrategicMergePatch(original, a.GetPatch(), schemaObj); err != nil {
			return nil, false, apierrors.NewBadRequest(err.Error())
		}
	default:
		return nil, false, unsupportedPatch(a.GetPatchType())
	}
	obj, err := r.New()
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	if err := json.Unmarshal(patched, obj); err != nil {
		return nil, false, apierrors.NewBadRequest(err.Error())
	}
	obj.GetObjectKind().SetGroupVersionKind(old.GetObjectKind().GroupVersionKind())
	return m.update(r, ns, sub, obj, write{manager: a.PatchOptions.FieldManager, unconditional: true, stored: old})
}

func unsupportedPatch(pt types.PatchType) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s",
			types.JSONPatchType, types.MergePatchType, types.ApplyYAMLPatchType),
	}}
}

func (m *Model) apply(r *Resource, ns, sub string, a clienttesting.PatchActionImpl) (runtime.Object, bool, error) {
	fm, err := r.fieldsFor(sub, true)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	if fm == nil {
		return nil, false, apierrors.NewBadRequest(fmt.Sprintf("server-side apply of %s needs a field manager: register its clientset with fixture.ManagedFields (its applyconfiguration package's NewTypeConverter)", r.GVR.Resource))
	}
	config := &unstructured.Unstructured{Object: map[string]any{}}
	if err := decodeApply(a.GetPatch(), &config.Object); err != nil {
		return nil, false, apierrors.NewBadRequest(err.Error())
	}
	config.SetName(a.GetName())
	force := a.PatchOptions.Force != nil && *a.PatchOptions.Force
	var live runtime.Object
	live, err = r.Store.Get(r.GVR, ns, a.GetName())
	exists := err == nil
	if apierrors.IsNotFound(err) {
		if sub != "" {
			return nil, false, err
		}
		if live, err = r.New(); err != nil {
			return nil, false, apierrors.NewInternalError(err)
		}
		live.GetObjectKind().SetGroupVersionKind(r.GVK)
	} else if err != nil {
		return nil, false, err
	}
	applied, err := fm.Apply(live, config, a.PatchOptions.FieldManager, force)
	if err != nil {
		return nil, false, err
	}
	if !exists {
		obj, err := m.create(r, ns, applied, write{managed: true})
		return obj, err == nil, err
	}
	am, _ := meta.Accessor(applied)
	lm, _ := meta.Accessor(live)
	am.SetResourceVersion(lm.GetResourceVersion())
	// The field manager has recorded the apply already.
	return m.update(r, ns, sub, applied, write{unconditional: true, managed: true, stored: live})
}

// decodeApply decodes an apply's body as the server does (YAML, of which
// JSON is a part). A JSON object is decoded as JSON, which gives the same
// values several times faster, unless it holds what the YAML decoder
// reads otherwise or refuses: an escape (go-yaml v2 refuses a surrogate
// pair) or a "-0" (JSON's negative zero, YAML's 0).
func decodeApply(body []byte, into *map[string]any) error {
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '{' &&
		bytes.IndexByte(body, '\\') < 0 && !bytes.Contains(body, []byte("-0")) {
		if err := json.Unmarshal(body, into); err == nil {
			return nil
		}
		*into = map[string]any{}
	}
	return yaml.Unmarshal(body, into)
}

func (m *Model) delete(r *Resource, ns, name string, opts metav1.DeleteOptions) (runtime.Object, bool, error) {
	old, err := r.Store.Get(r.GVR, ns, name)
	if err != nil {
		return nil, false, err
	}
	obj := old.DeepCopyObject()
	om, _ := meta.Accessor(obj)
	// rest.BeforeDelete checks the preconditions first; its errors name
	// the resource by its kind.
	if p := opts.Preconditions; p != nil {
		gr := schema.GroupResource{Group: r.GVK.Group, Resource: r.GVK.Kind}
		if p.UID != nil && *p.UID != om.GetUID() {
			return nil, false, apierrors.NewConflict(gr, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, om.GetUID()))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != om.GetResourceVersion() {
			return nil, false, apierrors.NewConflict(gr, name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, om.GetResourceVersion()))
		}
	}
	// Already being deleted gracefully: only a shorter grace period
	// changes anything (rest.BeforeDelete); 0 deletes at once. The
	// garbage collector's finalizers are not changed then.
	if grace := om.GetDeletionGracePeriodSeconds(); om.GetDeletionTimestamp() != nil && grace != nil && *grace > 0 {
		period := opts.GracePeriodSeconds
		if period == nil || *period >= *grace {
			return old, false, nil
		}
		p := max(*period, 0)
		om.SetDeletionGracePeriodSeconds(&p)
		ts := metav1.NewTime(m.now().Add(time.Duration(p) * time.Second))
		om.SetDeletionTimestamp(&ts)
		// A shorter grace period is a graceful delete again: the
		// propagation policy changes the garbage collector's finalizers.
		if changed, fs := gcFinalizers(r, om, opts); changed {
			om.SetFinalizers(fs)
		}
		if p > 0 || len(om.GetFinalizers()) > 0 {
			return m.store(r, ns, obj)
		}
		// The store writes the new deletion timestamp, then deletes.
		if _, _, err := m.store(r, ns, obj); err != nil {
			return nil, false, err
		}
		return m.remove(r, ns, name, obj)
	}
	// The registry's updateForGracefulDeletionAndFinalizers: the
	// propagation policy adds or removes the garbage collector's
	// finalizers, also on an object already being deleted.
	deleting := om.GetDeletionTimestamp() != nil
	if changed, fs := gcFinalizers(r, om, opts); changed {
		om.SetFinalizers(fs)
	}
	if !deleting {
		// Graceful deletion: pods on a node that have not finished.
		if period := gracePeriod(obj, opts); period > 0 {
			ts := metav1.NewTime(m.now().Add(time.Duration(period) * time.Second))
			om.SetDeletionTimestamp(&ts)
			om.SetDeletionGracePeriodSeconds(&period)
			if g := om.GetGeneration(); g > 0 {
				om.SetGeneration(g + 1)
			}
			return m.store(r, ns, obj)
		}
		if _, isPod := obj.(*corev1.Pod); isPod {
			// Pods are deleted gracefully always (the Pod strategy's
			// CheckGracefulDelete): with no grace period, the store first
			// writes the deletion timestamp (a watch sees the pod
			// modified), then deletes the pod unless finalizers hold it.
			ts := m.now()
			zero := int64(0)
			om.SetDeletionTimestamp(&ts)
			om.SetDeletionGracePeriodSeconds(&zero)
			if g := om.GetGeneration(); g > 0 {
				om.SetGeneration(g + 1)
			}
			stored, changed, err := m.store(r, ns, obj)
			if err != nil || len(om.GetFinalizers()) > 0 {
				return stored, changed, err
			}
			return m.remove(r, ns, name, obj)
		}
	}
	if len(om.GetFinalizers()) > 0 { // registry markAsDeleting
		if !deleting {
			if g := om.GetGeneration(); g > 0 {
				om.SetGeneration(g + 1)
			}
			ts := m.now()
			om.SetDeletionTimestamp(&ts)
		}
		zero := int64(0)
		om.SetDeletionGracePeriodSeconds(&zero)
		if encoded.Equal(obj, old) { // deleting again changes nothing
			return old, false, nil
		}
		return m.store(r, ns, obj)
	}
	if oldMeta, _ := meta.Accessor(old); len(oldMeta.GetFinalizers()) > 0 {
		// The finalizers were the garbage collector's and this delete
		// removed the last: the registry's update for them answered
		// errDeleteNow without writing, and Store.Delete goes on with the
		// empty object that update left. A dry run answers that object;
		// a resourceVersion precondition is checked against its empty
		// resourceVersion, and fails (kube-apiserver v1.37: the object
		// stays as it was).
		if _, dry := r.Store.(dryStore); dry {
			empty, err := r.New()
			if err != nil {
				return nil, false, apierrors.NewInternalError(err)
			}
			empty.GetObjectKind().SetGroupVersionKind(r.GVK)
			return empty, false, nil
		}
		if p := opts.Preconditions; p != nil && p.ResourceVersion != nil {
			return nil, false, lostPrecondition(r, ns, name, oldMeta.GetResourceVersion())
		}
	}
	return m.remove(r, ns, name, old)
}

// lostPrecondition is the Conflict of kube-apiserver v1.37's Store.Delete
// when a delete removes the last (garbage collector's) finalizers of an
// object and carries a resourceVersion precondition: the etcd3 store
// checks the precondition, replaced by the resourceVersion of an update
// that was never written (""), against the stored object's.
func lostPrecondition(r *Resource, ns, name, stored string) error {
	return apierrors.NewConflict(r.GVR.GroupResource(), name, fmt.Errorf(
		"StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: %s",
		storageKey(r, ns, name), stored))
}

// storageKey is the etcd key kube-apiserver stores an object under (with
// its default --etcd-prefix, /registry): a custom resource's under its
// group and plural, a built-in one's under its resource's prefix.
func storageKey(r *Resource, ns, name string) string {
	prefix := r.GVR.Resource
	switch b := r.builtinOf(); {
	case r.Custom:
		prefix = r.GVR.Group + "/" + r.GVR.Resource
	case b != nil && b.prefix != "":
		prefix = b.prefix
	}
	if r.Namespaced {
		return "/registry/" + prefix + "/" + ns + "/" + name
	}
	return "/registry/" + prefix + "/" + name
}

// store stores obj, changed, with a new resourceVersion, in the form the
// server stores it (serverForm).
func (m *Model) store(r *Resource, ns string, obj runtime.Object) (runtime.Object, bool, error) {
	serverForm(r, obj)
	return m.put(r, ns, obj)
}

// put stores obj, changed and in the server's form already, with a new
// resourceVersion.
func (m *Model) put(r *Resource, ns string, obj runtime.Object) (runtime.Object, bool, error) {
	om, _ := meta.Accessor(obj)
	om.SetResourceVersion(m.next())
	if err := r.Store.Update(r.GVR, obj, ns); err != nil {
		return nil, false, err
	}
	m.observe(r, watch.Modified, obj, "")
	return obj, true, nil
}

// remove deletes the stored object; the server answers with answer.
func (m *Model) remove(r *Resource, ns, name string, answer runtime.Object) (runtime.Object, bool, error) {
	if err := r.Store.Delete(r.GVR, ns, name); err != nil {
		return nil, false, err
	}
	m.observe(r, watch.Deleted, answer, m.next())
	return answer, true, nil
}

// observe tells m.Observe of a change: a copy of obj, with resourceVersion
// rv when rv is not "". The caller holds m.mu.
func (m *Model) observe(r *Resource, typ watch.EventType, obj runtime.Object, rv string) {
	if m.Observe == nil {
		return
	}
	if _, dry := r.Store.(dryStore); dry {
		return
	}
	obj = obj.DeepCopyObject()
	if rv != "" {
		if om, err := meta.Accessor(obj); err == nil {
			om.SetResourceVersion(rv)
		}
	}
	m.Observe(r, watch.Event{Type: typ, Object: obj})
}

// Revision is the resourceVersion of the last write: a list made now is at
// this revision.
func (m *Model) Revision() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.revision
}

// gracePeriod is the Pod strategy's CheckGracefulDelete: a pod bound to a
// node that has not finished gets the grace period the request or its
// spec gives (30 s, the server's default, when neither does); other pods
// and other resources are deleted at once.
func gracePeriod(obj runtime.Object, opts metav1.DeleteOptions) int64 {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return 0
	}
	period := int64(corev1.DefaultTerminationGracePeriodSeconds)
	switch {
	case opts.GracePeriodSeconds != nil:
		period = *opts.GracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return 0
	}
	if period < 0 {
		period = 1
	}
	return period
}

// gcFinalizers is the registry's deletionFinalizersForGarbageCollection:
// the object's finalizers with the garbage collector's (orphan,
// foregroundDeletion) added or removed as the delete's options ask, or, for
// options that ask nothing, as the object's finalizers or the strategy's
// default policy say; changed is false when the set is the same.
func gcFinalizers(r *Resource, om metav1.Object, opts metav1.DeleteOptions) (changed bool, out []string) {
	policy := r.strategy().gc
	if policy == gcUnsupported {
		return false, om.GetFinalizers()
	}
	//lint:ignore SA1019 the server still honours orphanDependents
	orphanOpt := opts.OrphanDependents
	prop := opts.PropagationPolicy
	has := func(f string) bool { return slices.Contains(om.GetFinalizers(), f) }
	var orphan, foreground bool
	switch {
	case orphanOpt != nil:
		orphan = *orphanOpt
	case prop != nil && *prop == metav1.DeletePropagationOrphan:
		orphan = true
	case prop != nil && (*prop == metav1.DeletePropagationBackground || *prop == metav1.DeletePropagationForeground):
	case has(metav1.FinalizerOrphanDependents):
		orphan = true
	case has(metav1.FinalizerDeleteDependents):
	default:
		orphan = policy == gcOrphan
	}
	switch {
	case orphanOpt != nil:
	case prop != nil:
		foreground = *prop == metav1.DeletePropagationForeground
	default:
		for _, f := range om.GetFinalizers() {
			if f == metav1.FinalizerDeleteDependents || f == metav1.FinalizerOrphanDependents {
				foreground = f == metav1.FinalizerDeleteDependents
				break
			}
		}
	}
	out = []string{}
	for _, f := range om.GetFinalizers() {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if sets.New(out...).Equal(sets.New(om.GetFinalizers()...)) {
		return false, om.GetFinalizers()
	}
	return true, out
}

// maxNameGenerationCreateAttempts is the registry's: the names a create
// with generateName tries before it gives up.
const maxNameGenerationCreateAttempts = 8

// alreadyExists is the store's AlreadyExists for the create of om:
// rest.CheckGeneratedNameError's generateName conflict when om has a
// generateName (whether or not the name was generated), and the store's
// prefix when the object that holds the name is being deleted.
func alreadyExists(r *Resource, om metav1.Object, existing runtime.Object) error {
	name := om.GetName()
	err := apierrors.NewAlreadyExists(r.GVR.GroupResource(), name)
	if om.GetGenerateName() != "" {
		err = apierrors.NewGenerateNameConflict(schema.GroupResource{Group: r.GVK.Group, Resource: r.GVR.Resource}, name, 1)
	}
	if em, merr := meta.Accessor(existing); merr == nil && em.GetDeletionTimestamp() != nil {
		err.ErrStatus.Message = "object is being deleted: " + err.ErrStatus.Message
	}
	return err
}

// noNewFinalizers is the metadata validation of every update
// (ValidateObjectMetaUpdate): an object being deleted takes no new
// finalizer.
func noNewFinalizers(r *Resource, om, oldMeta metav1.Object) error {
	if oldMeta.GetDeletionTimestamp() == nil {
		return nil
	}
	extra := sets.List(sets.New(om.GetFinalizers()...).Difference(sets.New(oldMeta.GetFinalizers()...)))
	if len(extra) == 0 {
		return nil
	}
	return apierrors.NewInvalid(r.GVK.GroupKind(), om.GetName(), field.ErrorList{field.Forbidden(field.NewPath("metadata", "finalizers"),
		fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra))})
}

func (m *Model) deleteCollection(r *Resource, ns string, a clienttesting.DeleteCollectionActionImpl) (runtime.Object, bool, error) {
	restr := a.GetListRestrictions()
	sel, _, err := Select(r, restr.Labels, restr.Fields)
	if err != nil {
		return nil, false, err
	}
	list, err := r.Store.List(r.GVR, r.GVK, ns)
	if err != nil {
		return nil, false, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	changed := false
	for _, item := range items {
		im, err := meta.Accessor(item)
		if err != nil || !sel.Matches(item) {
			continue
		}
		_, c, err := m.delete(r, im.GetNamespace(), im.GetName(), a.DeleteOptions)
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, changed, err
		}
		changed = changed || c
	}
	return nil, changed, nil
}
