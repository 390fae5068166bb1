// Package crd makes a ctrltest fixture treat custom resources as
// kube-apiserver does, from their CustomResourceDefinition manifests:
// unknown fields pruned (x-kubernetes-preserve-unknown-fields honoured),
// the structural schema's defaults applied, and the OpenAPI schema and
// CEL rules (x-kubernetes-validations, transition rules with oldSelf
// included) checked on every create and update, with the server's field
// paths and messages — on every seed too: a seed the server would refuse
// fails the test with its reason. What a CRD declares besides schemas
// reaches the fixture too: field selectors on its selectableFields, its
// scale subresource (and discovery's /scale), and a check that the
// registration of its kind (a generated clientset, fixture.WithTypes)
// has the CRD's plural, scope and status subresource. A CRD with no
// clientset and no Go type is served from its manifest alone, as
// unstructured objects.
//
//	f := fixture.New(t, fixture.WithClientset(Foos), crd.Files(t, "artifacts/crd.yaml"),
//		fixture.WithObjects(foo))
//
// It is a module of its own (github.com/ctrltest/ctrltest/crd), so that
// k8s.io/apiextensions-apiserver is a dependency only of the tests that use
// it. Everything is apiextensions-apiserver's own code: the CRD's create
// validation, the structural schema, the pruning and defaulting
// algorithms, and the custom resource registry strategy's Validate and
// ValidateUpdate (schema, metadata, list types, CEL with ratcheting).
//
// Schemas are compiled once per test binary: a manifest's documents are
// cached by their content, so a table of a thousand rows that each make a
// fixture with crd.Files compiles each CRD once and pays, per row, only
// for the custom resources it writes or seeds.
//
// # Limits
//
// Only apiextensions.k8s.io/v1 manifests; one version of a custom resource
// is never converted to another (no conversion webhooks). Objects sent
// through a typed clientset are converted to unstructured and back for
// the schema passes, so the CRD's schema and the Go type must agree; what
// is validated is what the server decodes from the object's encoding
// (kube-apiserver prunes unknown fields, then the nulls of fields that
// are neither nullable nor defaulted, then defaults, then validates), so
// a nil pointer whose json tag has no omitempty is no error. The
// options apply to the fixture's server model: with fixture.WithBareFakes
// nothing is checked, and on a real server (adapter.WithServer) the server
// does it all. A CRD whose kind no registration serves (no generated
// clientset, no Go type) is served as unstructured objects only: the
// dynamic and metadata clients, their informers and controller-runtime's
// unstructured client reach it; no typed client does.
//
// # When not to use it
//
// When the controller's custom resources have no schema rules a test
// depends on: the fixture's default world needs no manifest.
package crd
