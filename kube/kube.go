package kube

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// The API groups whose types, conversions, defaults and declarative
	// validations legacyscheme.Scheme must know: those of the table.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"

	"github.com/ctrltest/ctrltest/fixture"
)

// Server returns the option that makes a fixture's server model hold
// built-in objects as kube-apiserver v1.37 does, with kube-apiserver's own
// code: the defaults the server applies when it decodes a request
// (legacyscheme.Scheme's Default), and the validation of its registry
// strategies (Validate on a create, ValidateUpdate on an update, the
// status strategy's on a write of /status, the declarative validation
// they are wired with), on every write and every seed. A write the
// server would refuse gets its 422 answer, word for word; a seed it
// would refuse fails the test with it.
//
//	f := fixture.New(t, kube.Server(), fixture.WithObjects(deployment))
//
// The warnings kube-apiserver gives a write it accepts (its strategies'
// WarningsOnCreate and WarningsOnUpdate: a deprecated node label, ...)
// are in the sync's Result.Warnings (fixture.WithWarnings).
//
// It is fixture.WithDefaulting and fixture.WithValidation with
// kube-apiserver's functions: given with others of these, the defaulting
// functions run in the order the options were given, and so do the
// validations, whose findings add up. Kinds the module does not cover (see Kinds) are
// defaulted by the scheme when it knows them, and not validated.
func Server() fixture.Option {
	return server{resources: resources()}.option()
}

// Versions of the code the module runs: k8s.io/kubernetes, whose
// registry strategies, defaults and conversions it is, and the k8s.io/api
// they are generated for (TestVersions checks both against go.mod).
const (
	kubernetesVersion = "v1.37.1"
	apiVersion        = "v0.37.2"
)

// served reports whether a default kube-apiserver of the module's
// k8s.io/kubernetes serves gvk, a kind of the table: legacyscheme knows
// the version, and it is not an alpha or beta (kube-apiserver v1.37
// enables the stable versions of the table's groups by default and
// disables their betas and alphas: pkg/controlplane's
// DefaultAPIResourceConfigSource).
func served(gvk schema.GroupVersionKind) bool {
	return legacyscheme.Scheme.Recognizes(gvk) && !strings.Contains(gvk.Version, "alpha") && !strings.Contains(gvk.Version, "beta")
}

// unserved is the finding on an object of a covered kind in a version a
// default kube-apiserver does not serve: the versions it serves, and the
// two module versions, since a k8s.io/api other than the one the module's
// k8s.io/kubernetes is built for may be why.
func unserved(gvk schema.GroupVersionKind) *field.Error {
	var versions []string
	for _, gv := range legacyscheme.Scheme.PrioritizedVersionsForGroup(gvk.Group) {
		if v := gv.WithKind(gvk.Kind); served(v) {
			versions = append(versions, gv.String())
		}
	}
	slices.Sort(versions)
	return field.Invalid(field.NewPath("apiVersion"), gvk.GroupVersion().String(), fmt.Sprintf(
		"kube.Server(): the kube-apiserver of k8s.io/kubernetes %s (the kube module's) does not serve %s in this version, only in %s: "+
			"a version it removed or has not made stable, or a type of a k8s.io/api other than the %s k8s.io/kubernetes %s is built for",
		kubernetesVersion, gvk.Kind, strings.Join(versions, ", "), apiVersion, kubernetesVersion))
}

// resources is the table, made once: it is never changed.
var resources = sync.OnceValue(table)

// Validate returns what kube-apiserver's registry finds wrong with the
// write v: a create (v.Old nil), an update, or a write of the
// subresource v.Subresource; v.Object has its kind set, as the fixture
// gives it (see Server, which calls it on every write and seed), and
// defaulted as the server decodes it (Default): some strategies rely on
// the defaults (a Job's PrepareForCreate reads spec.manualSelector) and a
// panic in them is the caller's to recover (the fixture does). It returns
// nothing for kinds it does not cover, and does not change v's objects.
func Validate(v fixture.Validation) field.ErrorList {
	return server{resources: resources()}.Validate(v)
}

// option is the fixture option of s: the warnings of a write are those
// its validation found (the model asks for them right after it), kept
// for that write's objects.
func (s server) option() fixture.Option {
	j := &judged{}
	return fixture.Options{
		fixture.WithDefaulting(Default),
		fixture.WithValidation(func(v fixture.Validation) field.ErrorList {
			errs, _, warnings := s.judge(v)
			j.keep(v, warnings)
			return errs
		}),
		fixture.WithWarnings(func(v fixture.Validation) []string {
			if warnings, ok := j.take(v); ok {
				return warnings
			}
			return s.Warnings(v)
		}),
	}
}

// judged keeps the warnings of the last write validated, by its objects,
// for the warnings hook that follows (an option's hooks may serve several
// fixtures at once: a table's rows in parallel).
type judged struct {
	mu       sync.Mutex
	obj, old runtime.Object
	sub      string
	warnings []string
}

func (j *judged) keep(v fixture.Validation, warnings []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.obj, j.old, j.sub, j.warnings = v.Object, v.Old, v.Subresource, warnings
}

// take returns the kept warnings when v is the write they are of.
func (j *judged) take(v fixture.Validation) ([]string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.obj != v.Object || j.old != v.Old || j.sub != v.Subresource {
		return nil, false
	}
	warnings := j.warnings
	j.obj, j.old, j.warnings = nil, nil, nil
	return warnings, true
}

// Default applies to obj, a built-in object in a version kube-apiserver
// serves, the defaults the server applies when it decodes it
// (legacyscheme.Scheme's defaulting functions), and what its conversion
// from the internal type sets (a StatefulSet's claim templates' apiVersion
// and kind); it does nothing to an object of a type the scheme does not
// know. An unstructured object is defaulted as its typed form would be.
// The fixture runs it on a write's object as the server decodes it, and on
// what the write stores, as the server decodes it from storage (a claim
// whose status the strategy reset reads back Pending).
func Default(obj runtime.Object) {
	u, ok := obj.(runtime.Unstructured)
	if !ok {
		legacyscheme.Scheme.Default(obj)
		convertedForm(obj)
		return
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	typed, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		return // not a built-in type
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), typed); err != nil {
		return // the validation reports what does not decode
	}
	legacyscheme.Scheme.Default(typed)
	convertedForm(typed)
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return
	}
	content["apiVersion"], content["kind"] = gvk.GroupVersion().String(), gvk.Kind
	u.SetUnstructuredContent(content)
}

// convertedForm sets in obj what kube-apiserver's conversion from the
// internal type sets beside the defaults, so that the object is as the
// server answers it: a StatefulSet's claim templates' apiVersion and kind
// (Convert_apps_StatefulSetSpec_To_v1_StatefulSetSpec).
func convertedForm(obj runtime.Object) {
	if ss, ok := obj.(*appsv1.StatefulSet); ok {
		for i := range ss.Spec.VolumeClaimTemplates {
			ss.Spec.VolumeClaimTemplates[i].APIVersion = "v1"
			ss.Spec.VolumeClaimTemplates[i].Kind = "PersistentVolumeClaim"
		}
	}
}

// Kinds returns the kinds whose writes Server validates, in no order:
// every version of each that legacyscheme serves.
func Kinds() []schema.GroupKind {
	t := resources()
	kinds := make([]schema.GroupKind, 0, len(t))
	for gk := range t {
		kinds = append(kinds, gk)
	}
	return kinds
}

// server validates writes with the strategies of its resources.
type server struct {
	resources map[schema.GroupKind]resource
	// fingerprints, when set, replace the module's (a test's).
	fingerprints map[string]string
}

// Validate judges v as kube-apiserver's registry would (rest.BeforeCreate
// and rest.BeforeUpdate): the versioned object (and the stored one) are
// converted to the internal type, prepared by the strategy
// (PrepareForCreate, PrepareForUpdate) and validated by it
// (rest.ValidateCreate, rest.ValidateUpdate: the strategy's validation,
// the object metadata's, the declarative validation). What it prepares
// is a copy: v's objects are not changed.
//
// A create whose object carries a status (a seed: the server would hold
// it through a create, which resets the status, and then a write of
// /status) is also validated as that write of its status, as parity
// seeds a server.
func (s server) Validate(v fixture.Validation) field.ErrorList {
	errs, _, _ := s.judge(v)
	return errs
}

// Warnings returns the warnings kube-apiserver gives the client of the
// write v when it accepts it: its strategy's WarningsOnCreate or
// WarningsOnUpdate, on the object as the strategy prepared it (a
// deprecated node label in a pod template's node selector, a pod's
// deprecated annotation, ...); none for a write it refuses, and for kinds
// it does not cover.
func (s server) Warnings(v fixture.Validation) []string {
	errs, _, warnings := s.judge(v)
	if len(errs) > 0 {
		return nil
	}
	return warnings
}

// judge is Validate, and returns the object as the strategy prepared it
// (internal; nil for a kind, or a subresource, with no strategy here) and
// the strategy's warnings.
func (s server) judge(v fixture.Validation) (field.ErrorList, runtime.Object, []string) {
	gvk := v.Object.GetObjectKind().GroupVersionKind()
	r, ok := s.resources[gvk.GroupKind()]
	if !ok {
		return nil, nil, nil
	}
	if !served(gvk) {
		return field.ErrorList{unserved(gvk)}, nil, nil
	}
	if err := s.skew(gvk); err != nil {
		return field.ErrorList{err}, nil, nil
	}
	in, err := internal(v.Object, gvk)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}, nil, nil
	}
	if v.Old == nil && v.Subresource == "" {
		errs, warnings := s.create(r, gvk, in)
		return errs, in, warnings
	}
	st := rest.RESTUpdateStrategy(r.strategy)
	if v.Subresource != "" {
		if st, ok = r.subresources[v.Subresource]; !ok {
			return nil, nil, nil // a subresource kube-apiserver does not write through a strategy
		}
	}
	if v.Old == nil {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("a write of %s/%s with no stored object", r.resource, v.Subresource))}, nil, nil
	}
	old, err := internal(v.Old, gvk)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}, nil, nil
	}
	errs, warnings := update(request(gvk, r, in, "update", v.Subresource), st, in, old)
	return errs, in, warnings
}

// prepared returns the object of the write v as kube-apiserver's registry
// strategy prepares it (PrepareForCreate, or PrepareForUpdate after the
// store's rules), in v.Object's version; nil for a kind or a subresource
// with no strategy here. It is what the server would store, for the
// differential test's comparison with the model's own rules.
func (s server) prepared(v fixture.Validation) (runtime.Object, error) {
	_, in, _ := s.judge(v)
	if in == nil {
		return nil, nil
	}
	gvk := v.Object.GetObjectKind().GroupVersionKind()
	out, err := legacyscheme.Scheme.ConvertToVersion(in, gvk.GroupVersion())
	if err != nil {
		return nil, err
	}
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return out, nil
}

// create validates in, the internal form of a created object (or seed),
// which the strategy prepares.
func (s server) create(r resource, gvk schema.GroupVersionKind, in runtime.Object) (field.ErrorList, []string) {
	ctx := request(gvk, r, in, "create", "")
	var sent runtime.Object
	statusStrategy := r.subresources["status"]
	if statusStrategy != nil && hasStatus(in) {
		sent = in.DeepCopyObject()
	}
	r.strategy.PrepareForCreate(ctx, in)
	errs := rest.ValidateCreate(ctx, in, r.strategy)
	if len(errs) > 0 {
		return errs, nil
	}
	warnings := r.strategy.WarningsOnCreate(ctx, in)
	if sent == nil || equality.Semantic.DeepEqual(statusOf(sent), statusOf(in)) {
		return nil, warnings
	}
	errs, _ = update(request(gvk, r, sent, "update", "status"), statusStrategy, sent, in.DeepCopyObject())
	return errs, warnings
}

// update validates obj over old as rest.BeforeUpdate does, with the
// strategy st, and returns the strategy's warnings when it finds nothing
// wrong: obj is changed.
func update(ctx context.Context, st rest.RESTUpdateStrategy, obj, old runtime.Object) (field.ErrorList, []string) {
	om, err := meta.Accessor(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}, nil
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}, nil
	}
	// The store: an unconditional update (no resourceVersion, which the
	// server model has allowed or refused already) is made at the stored
	// object's resourceVersion. (A seed's status write is made on an
	// object that has none yet: the first a server would give it.)
	if om.GetResourceVersion() == "" {
		rv := oldMeta.GetResourceVersion()
		if rv == "" {
			rv = "1"
		}
		om.SetResourceVersion(rv)
	}
	// rest.BeforeUpdate: requests cannot update the generation; the
	// strategy's PrepareForUpdate bumps it.
	om.SetGeneration(oldMeta.GetGeneration())
	st.PrepareForUpdate(ctx, obj, old)
	if om.GetUID() == "" {
		om.SetUID(oldMeta.GetUID())
	}
	if t := oldMeta.GetCreationTimestamp(); !t.IsZero() {
		om.SetCreationTimestamp(t)
	}
	if !oldMeta.GetDeletionTimestamp().IsZero() {
		om.SetDeletionTimestamp(oldMeta.GetDeletionTimestamp())
	}
	if oldMeta.GetDeletionGracePeriodSeconds() != nil && om.GetDeletionGracePeriodSeconds() == nil {
		om.SetDeletionGracePeriodSeconds(oldMeta.GetDeletionGracePeriodSeconds())
	}
	if errs := rest.ValidateUpdate(ctx, obj, old, st); len(errs) > 0 {
		return errs, nil
	}
	return nil, st.WarningsOnUpdate(ctx, obj, old)
}

// internal converts obj, of kind gvk, to a new object of its internal
// type.
func internal(obj runtime.Object, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		typed, err := legacyscheme.Scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), typed); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", gvk.Kind, err)
		}
		obj = typed
	}
	// ConvertToVersion converts a copy: obj is not changed.
	in, err := legacyscheme.Scheme.ConvertToVersion(obj, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return nil, fmt.Errorf("converting %s to its internal type: %w", gvk.Kind, err)
	}
	if in == obj {
		in = obj.DeepCopyObject()
	}
	return in, nil
}

// request is the context of kube-apiserver's handler for a request of
// verb on obj (its subresource sub): the request info the declarative
// validation reads its version from, and the namespace.
func request(gvk schema.GroupVersionKind, r resource, obj runtime.Object, verb, sub string) context.Context {
	ns, name := "", ""
	if om, err := meta.Accessor(obj); err == nil {
		ns, name = om.GetNamespace(), om.GetName()
	}
	prefix := "apis"
	if gvk.Group == "" {
		prefix = "api"
	}
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              verb,
		APIPrefix:         prefix,
		APIGroup:          gvk.Group,
		APIVersion:        gvk.Version,
		Namespace:         ns,
		Resource:          r.resource,
		Subresource:       sub,
		Name:              name,
	})
}

// statusOf returns the Status field of an internal object, or nil.
func statusOf(obj runtime.Object) any {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("Status")
	if !f.IsValid() {
		return nil
	}
	return f.Interface()
}

// hasStatus reports whether obj's Status field is set.
func hasStatus(obj runtime.Object) bool {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	f := v.Elem().FieldByName("Status")
	return f.IsValid() && !f.IsZero()
}
