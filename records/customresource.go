package records

import "k8s.io/apimachinery/pkg/runtime/schema"

// CustomResource is what a CustomResourceDefinition declares about one
// served version of its resource besides its schemas (fixture.WithCustomResources
// takes it; the crd module reads it off CRD manifests).
type CustomResource struct {
	// GVK is the custom resource's group, version (a served version of the
	// CRD) and kind.
	GVK schema.GroupVersionKind
	// Resource is the CRD's plural (spec.names.plural).
	Resource string
	// Namespaced is false for a cluster-scoped resource.
	Namespaced bool
	// Status is true when the version has the status subresource.
	Status bool
	// Scale is the version's scale subresource; nil when it has none.
	Scale *CustomResourceScale
	// SelectableFields are the JSON paths (".spec.color") of the
	// version's selectable fields, which a field selector may name beside
	// metadata.name and metadata.namespace.
	SelectableFields []string
	// Source names the definition in messages ("CustomResourceDefinition
	// foos.example.com of crds.yaml (document 1)"); "" for none.
	Source string
}

// CustomResourceScale is a custom resource's scale subresource: the JSON
// paths (".spec.replicas") of the replicas it asks for, of those it has,
// and of its label selector ("" for none).
type CustomResourceScale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  string
}
