// Package apiserver is a model of kube-apiserver's semantics, behind every
// fake client of a ctrltest world: what a real server does with a write
// that client-go's fakes do not.
//
// The model answers creates, updates, patches (JSON, merge, strategic
// merge), server-side applies and deletes, of objects and of their status
// subresource, over a [Store] (client-go's object tracker):
//
//   - every object stored (seeds too) in the form the server stores it
//     (times.go): a metav1.Time to the second and a metav1.MicroTime to
//     the microsecond, as JSON keeps them (ServerTimes); a custom
//     resource's metadata as apiextensions-apiserver's schema coercer
//     leaves it (no empty finalizers, labels or annotations);
//   - create: generateName (a deterministic counter; a taken name tries
//     the next, 8 in all, then the server's generateName conflict), uid,
//     creationTimestamp, generation 1 where the resource tracks it,
//     resourceVersion, the status reset where the resource has a status
//     subresource, the strategy's own changes (a Pod's phase and QoS class,
//     a Job's selector and labels, a Namespace's finalizer);
//     AlreadyExists;
//   - update and patch: a stale resourceVersion is a Conflict, a missing
//     one is refused where the strategy allows no unconditional update
//     (custom resources, Leases, PodDisruptionBudgets, ...); no finalizer
//     may be added to an object being deleted; the
//     resource's strategy (a main-resource write keeps the stored status,
//     a /status write keeps the stored spec and, per resource, some
//     metadata) and generation rule; a write that changes nothing keeps
//     the object and its resourceVersion and sends no watch event (the
//     etcd3 store's no-op check); removing the last finalizer of an object
//     being deleted deletes it;
//   - delete: finalizers (deletionTimestamp, generation+1), the garbage
//     collector's finalizers for the Orphan and Foreground propagation
//     policies and each strategy's default policy (also on a second delete
//     of an object being deleted), graceful deletion of pods bound to a
//     node, preconditions (and v1.37's lost one: a resourceVersion
//     precondition of a delete that removes the last garbage collector's
//     finalizer is a Conflict);
//     delete-collection by label and field selector;
//   - dry runs: the answer the write would get; nothing is stored;
//   - selectors (Select): the field-label conversion and the selectable
//     fields of each kind (fieldlabels.go), custom resources' selectable
//     fields (Resource.SelectableFields); lists filtered, watches filtered
//     as the watch cache filters them (objects entering the selection are
//     Added, those leaving it Deleted);
//   - the scale subresource (Read, and updates and patches through Do) of
//     Deployments, ReplicaSets, StatefulSets, ReplicationControllers and
//     custom resources with a Resource.Scale: the parent's replicas,
//     written through the parent's update path;
//   - a pod's eviction: PodDisruptionBudgets (through Resource.Lookup), the
//     budget spent with a write of its status, 429 when it allows no
//     disruption, the DisruptionTarget condition, then the pod's delete.
//
// Every rule is read from kube-apiserver v1.37's code (the registry's
// strategies, k8s.io/apiserver's rest and registry packages, the etcd3
// store and apiextensions-apiserver's custom resource strategy) and proved
// against a real server by the parity module's semantics suite.
//
// # Limits
//
// No defaulting (but for a Pod's 30-second grace period) or validation of
// its own: a Model's Admission hooks (admission.go) bring them, from
// fixture.WithDefaulting and fixture.WithValidation (and the crd module,
// for custom resources); no admission plugins; no garbage collector: objects deleted with the Orphan or
// Foreground policy keep that finalizer, as on a server without
// kube-controller-manager, and so do batch/v1 Jobs and v1
// ReplicationControllers deleted with default options (their strategies
// orphan dependents by default: a cluster's garbage collector removes the
// finalizer soon after); no clusterIP allocation. Reads
// and watches are the store's, filtered by Select; server-side apply of a
// Scale is refused (not modelled).
package apiserver
