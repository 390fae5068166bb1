package records

import "k8s.io/apimachinery/pkg/runtime/schema"

// CustomResource is what a CustomResourceDefinition declares about one
// served version of its resource besides its schemas, for
// fixture.WithCustomResources.
type CustomResource struct {
	GVK schema.GroupVersionKind
	// Resource is the CRD's plural (spec.names.plural).
	Resource   string
	Namespaced bool
	// Status is true when the version has the status subresource.
	Status bool
	// Scale is the version's scale subresource; nil when it has none.
	Scale *CustomResourceScale
	// SelectableFields are the JSON paths (".spec.color") of the
	// version's selectable fields.
	SelectableFields []string
	// Source names the definition in messages ("CustomResourceDefinition
	// foos.example.com of crds.yaml (document 1)"); "" for none.
	Source string
}

// CustomResourceScale is a custom resource's scale subresource: JSON
// paths (".spec.replicas"); "" for no label selector.
type CustomResourceScale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  string
}
