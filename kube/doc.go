// Package kube makes a ctrltest fixture hold built-in objects as
// kube-apiserver v1.37 does, with kube-apiserver's own code from
// k8s.io/kubernetes: the server's defaults (legacyscheme.Scheme's
// defaulting functions) on every write and seed, and the validation of
// the registry strategies (pkg/registry/<group>/<resource>/strategy.go:
// PrepareForCreate or PrepareForUpdate, then Validate or ValidateUpdate,
// the object metadata's validation and the declarative validation, as
// k8s.io/apiserver's rest.BeforeCreate and rest.BeforeUpdate run them),
// the status strategy's for a write of /status. A write the server would
// refuse gets the server's 422 answer word for word; a seed it would
// refuse fails the test, naming the field.
//
//	f := fixture.New(t, kube.Server(), fixture.WithObjects(deployment))
//
// It is a module of its own (github.com/ctrltest/ctrltest/kube), so that
// k8s.io/kubernetes is a dependency only of the tests that use it. A
// module that requires k8s.io/kubernetes must replace its staging modules
// with their published versions; `go run
// github.com/ctrltest/ctrltest/kube/cmd/replaces` prints the directives.
//
// # Limits
//
// The kinds validated are those Kinds lists (core/v1 Pods, Services,
// ConfigMaps, Secrets, Namespaces, Nodes, PersistentVolumes and their
// claims, Endpoints, ServiceAccounts, Events, ReplicationControllers,
// PodTemplates, LimitRanges, ResourceQuotas; apps/v1; batch/v1;
// PodDisruptionBudgets; Leases; RBAC; Ingresses, IngressClasses,
// NetworkPolicies; EndpointSlices; events.k8s.io Events;
// HorizontalPodAutoscalers; PriorityClasses; StorageClasses); other
// built-in kinds are defaulted but not validated, and custom resources
// are left to the crd module. What the strategies prepare is used for
// the verdict only: the objects stored are the server model's (its own
// reading of the strategies' status and generation rules). Not run:
// admission plugins (beyond what the server model does for Pods), the
// strategies' warnings, the checks of the REST storage around the
// strategies (a Service's cluster IP and node port allocation, RBAC's
// escalation check). Feature gates are kube-apiserver's defaults.
//
// # When not to use it
//
// When a test's objects are only custom resources, or when the controller
// never sends the server an object it would refuse: the fixture's default
// world is faster to build.
package kube
