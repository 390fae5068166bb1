package crd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/ctrltest/ctrltest/fixture"
)

// Definitions are compiled custom resource definitions: for each served
// version of each, its structural schema (pruning and defaulting), its
// OpenAPI schema validator and its CEL rules, compiled once per test
// binary. Make them with [Load] or [Parse] (or, in a test, [Files] and
// [Bytes]); they are safe for concurrent use by any number of fixtures.
type Definitions struct {
	crds []*compiled
	// byGVK finds a served version by its kind.
	byGVK map[schema.GroupVersionKind]*version
}

// Resource is what a CustomResourceDefinition says about the resource it
// serves, beside its schemas: the names, the scope, the subresources and
// the selectable fields of each version, in plain values.
type Resource struct {
	// Name is the CRD's metadata.name (<plural>.<group>).
	Name  string
	Group string
	// Kind, ListKind, Plural and Singular are spec.names'.
	Kind, ListKind, Plural, Singular string
	// ShortNames and Categories are spec.names'.
	ShortNames, Categories []string
	// Namespaced is false for a cluster-scoped resource.
	Namespaced bool
	// Versions are the served versions, in the CRD's order.
	Versions []Version
}

// Version is one served version of a [Resource].
type Version struct {
	Name string
	// Storage is true for the storage version.
	Storage bool
	// Status is true when the version has the status subresource.
	Status bool
	// Scale is the scale subresource's paths, nil when it has none.
	Scale *Scale
	// SelectableFields are the JSON paths of the version's selectable
	// fields (".spec.color"), usable in field selectors beside
	// metadata.name and metadata.namespace.
	SelectableFields []string
}

// Scale is a version's scale subresource: JSON paths into the custom
// resource (".spec.replicas").
type Scale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	// LabelSelectorPath is "" when the CRD names none.
	LabelSelectorPath string
}

// compiled is one CustomResourceDefinition, compiled.
type compiled struct {
	source   string // the file (or name) and document it came from
	resource Resource
	versions []*version
}

// version is one served version of a compiled CRD.
type version struct {
	gvk schema.GroupVersionKind
	// structural is nil without a schema (preserveUnknownFields).
	structural      *structuralschema.Structural
	preserveUnknown bool
	status          bool
	validate        func(ctx context.Context, obj runtime.Object) field.ErrorList
	validateUpdate  func(ctx context.Context, obj, old runtime.Object) field.ErrorList
	validateStatus  func(ctx context.Context, obj, old runtime.Object) field.ErrorList
}

// cache holds every document compiled in this test binary, by the SHA-256
// of its bytes: a CRD is compiled once, however many fixtures use it.
var cache sync.Map // [sha256.Size]byte -> *cacheEntry

type cacheEntry struct {
	once sync.Once
	c    *compiled
	err  error
}

// compilations counts the CRDs compiled (for tests and benchmarks).
var compilations atomic.Int64

// Load reads the CRD manifests at paths (YAML or JSON, one or more
// documents each; every document must be an apiextensions.k8s.io/v1
// CustomResourceDefinition) and compiles them. An error names the file
// and the document, and says what the API server would refuse.
func Load(paths ...string) (*Definitions, error) {
	if len(paths) == 0 {
		return nil, errors.New("crd.Load: no file")
	}
	var all []*compiled
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("crd: %v", err)
		}
		cs, err := parse(p, data)
		if err != nil {
			return nil, err
		}
		all = append(all, cs...)
	}
	return newDefinitions(all)
}

// Parse compiles the CRD manifests of data (YAML or JSON, one or more
// documents); name names it in errors (a file name, say).
func Parse(name string, data []byte) (*Definitions, error) {
	cs, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	return newDefinitions(cs)
}

// Files loads the CRD manifests at paths (see [Load]) and returns the
// fixture option that makes the server model default, prune and validate
// their custom resources (see [Definitions.Option]). A bad manifest fails
// t at once, naming the file.
func Files(t testing.TB, paths ...string) fixture.Option {
	t.Helper()
	d, err := Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	return d.Option()
}

// Bytes is [Files] for manifests in memory, each named "manifest <i>" in
// errors.
func Bytes(t testing.TB, manifests ...[]byte) fixture.Option {
	t.Helper()
	var all []*compiled
	for i, data := range manifests {
		cs, err := parse(fmt.Sprintf("manifest %d", i), data)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, cs...)
	}
	d, err := newDefinitions(all)
	if err != nil {
		t.Fatal(err)
	}
	return d.Option()
}

// Resources returns what the definitions say about their resources, in the
// order of the manifests.
func (d *Definitions) Resources() []Resource {
	out := make([]Resource, len(d.crds))
	for i, c := range d.crds {
		out[i] = c.resource
	}
	return out
}

func newDefinitions(cs []*compiled) (*Definitions, error) {
	if len(cs) == 0 {
		return nil, errors.New("crd: no CustomResourceDefinition in the manifests")
	}
	d := &Definitions{crds: cs, byGVK: map[schema.GroupVersionKind]*version{}}
	from := map[schema.GroupKind]string{}
	for _, c := range cs {
		gk := schema.GroupKind{Group: c.resource.Group, Kind: c.resource.Kind}
		if other, dup := from[gk]; dup {
			return nil, fmt.Errorf("crd: %s and %s both define %s", other, c.source, gk)
		}
		from[gk] = c.source
		for _, v := range c.versions {
			d.byGVK[v.gvk] = v
		}
	}
	return d, nil
}

// parsed caches parse's results by name and content: a table's rows that
// each make their option with Files read the file, and find it parsed.
var parsed sync.Map // parseKey -> *parseEntry

type parseKey struct {
	name string
	sum  [sha256.Size]byte
}

type parseEntry struct {
	once sync.Once
	cs   []*compiled
	err  error
}

// parse compiles every document of data, once per name and content.
func parse(name string, data []byte) ([]*compiled, error) {
	e, _ := parsed.LoadOrStore(parseKey{name, sha256.Sum256(data)}, &parseEntry{})
	entry := e.(*parseEntry)
	entry.once.Do(func() { entry.cs, entry.err = parseDocs(name, data) })
	return entry.cs, entry.err
}

// parseDocs compiles every document of data.
func parseDocs(name string, data []byte) ([]*compiled, error) {
	r := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*compiled
	for i := 1; ; i++ {
		var raw runtime.RawExtension
		if err := r.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("crd: %s, document %d: %v", name, i, err)
		}
		doc := bytes.TrimSpace(raw.Raw)
		if len(doc) == 0 || bytes.Equal(doc, []byte("null")) {
			continue
		}
		c, err := compileCached(doc)
		if err != nil {
			return nil, fmt.Errorf("crd: %s, document %d: %v", name, i, err)
		}
		cp := *c
		cp.source = fmt.Sprintf("%s (document %d)", name, i)
		out = append(out, &cp)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("crd: %s holds no CustomResourceDefinition", name)
	}
	return out, nil
}

// compileCached compiles a document once per test binary.
func compileCached(doc []byte) (*compiled, error) {
	e, _ := cache.LoadOrStore(sha256.Sum256(doc), &cacheEntry{})
	entry := e.(*cacheEntry)
	entry.once.Do(func() { entry.c, entry.err = compile(doc) })
	return entry.c, entry.err
}

// compile compiles one CustomResourceDefinition as kube-apiserver does when
// it is created: the v1 defaults, the create validation of the registry
// (structural schema, pruned defaults, CEL rules that compile), then what
// apiextensions-apiserver's custom resource handler builds to serve it.
func compile(doc []byte) (*compiled, error) {
	compilations.Add(1)
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return nil, err
	}
	if head.Kind != "CustomResourceDefinition" || head.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("%s %s is not a CustomResourceDefinition of %s", head.APIVersion, head.Kind, apiextensionsv1.SchemeGroupVersion)
	}
	v1 := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(doc, v1); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition: %v", err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	internal := &apiextensionsinternal.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, internal, nil); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %q: %v", v1.Name, err)
	}
	ctx := context.Background() // no request: validation and compilation only
	if errs := crdvalidation.ValidateCustomResourceDefinition(ctx, internal); len(errs) > 0 {
		return nil, fmt.Errorf("the API server would refuse CustomResourceDefinition %q: %v", v1.Name, errs.ToAggregate())
	}
	c := &compiled{resource: resourceOf(v1)}
	for _, v := range v1.Spec.Versions {
		if !v.Served {
			continue
		}
		ver, err := compileVersion(v1, v)
		if err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %q, version %s: %v", v1.Name, v.Name, err)
		}
		c.versions = append(c.versions, ver)
	}
	return c, nil
}

// compileVersion builds what apiextensions-apiserver's custom resource
// handler (crdHandler.getOrCreateServingInfoFor) builds for one version:
// the structural schema with pruned defaults, the schema validators and
// the registry strategy with its CEL validator.
func compileVersion(crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) (*version, error) {
	out := &version{
		gvk:             schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind},
		preserveUnknown: crd.Spec.PreserveUnknownFields,
	}
	var internalSchema *apiextensionsinternal.JSONSchemaProps
	if v.Schema != nil {
		iv := &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, iv, nil); err != nil {
			return nil, err
		}
		internalSchema = iv.OpenAPIV3Schema
		s, err := structuralschema.NewStructural(internalSchema)
		if err != nil && !out.preserveUnknown {
			return nil, err
		}
		if s != nil {
			s = s.DeepCopy()
			if !out.preserveUnknown {
				if err := structuraldefaulting.PruneDefaults(s); err != nil {
					return nil, err
				}
			}
		}
		out.structural = s
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internalSchema)
	if err != nil {
		return nil, err
	}
	var statusSpec *apiextensionsinternal.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if v.Subresources != nil && v.Subresources.Status != nil {
		out.status = true
		statusSpec = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		if internalSchema != nil && internalSchema.Properties != nil {
			if s, ok := internalSchema.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&s); err != nil {
					return nil, err
				}
			}
		}
	}
	var scaleSpec *apiextensionsinternal.CustomResourceSubresourceScale
	if v.Subresources != nil && v.Subresources.Scale != nil {
		scaleSpec = &apiextensionsinternal.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(v.Subresources.Scale, scaleSpec, nil); err != nil {
			return nil, err
		}
	}
	strategy := customresource.NewStrategy(unstructuredscheme.NewUnstructuredObjectTyper(),
		crd.Spec.Scope == apiextensionsv1.NamespaceScoped, out.gvk, validator, statusValidator,
		out.structural, statusSpec, scaleSpec, v.SelectableFields)
	out.validate, out.validateUpdate = strategy.Validate, strategy.ValidateUpdate
	if statusSpec != nil {
		out.validateStatus = customresource.NewStatusStrategy(strategy).ValidateUpdate
	}
	return out, nil
}

func resourceOf(crd *apiextensionsv1.CustomResourceDefinition) Resource {
	n := crd.Spec.Names
	r := Resource{
		Name: crd.Name, Group: crd.Spec.Group,
		Kind: n.Kind, ListKind: n.ListKind, Plural: n.Plural, Singular: n.Singular,
		ShortNames: n.ShortNames, Categories: n.Categories,
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		ver := Version{Name: v.Name, Storage: v.Storage}
		if s := v.Subresources; s != nil {
			ver.Status = s.Status != nil
			if s.Scale != nil {
				ver.Scale = &Scale{SpecReplicasPath: s.Scale.SpecReplicasPath, StatusReplicasPath: s.Scale.StatusReplicasPath}
				if s.Scale.LabelSelectorPath != nil {
					ver.Scale.LabelSelectorPath = *s.Scale.LabelSelectorPath
				}
			}
		}
		for _, f := range v.SelectableFields {
			ver.SelectableFields = append(ver.SelectableFields, f.JSONPath)
		}
		r.Versions = append(r.Versions, ver)
	}
	return r
}
