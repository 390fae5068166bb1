package semantics

// accepted are the divergences between the fixture's default world and a
// real kube-apiserver that the suite accepts, each with its reason. (None
// yet: every divergence below is the fakes'.)
var accepted = []Known{}

// fakesKnown are the divergences of client-go's bare fakes, the fixture's
// default world until the server model of issue 11 lands. DELETE THIS LIST
// when it does: what the suite then reports is the model's to fix, or to
// accept above with its reason. The first entry that matches a divergence
// accepts it; each entry must accept at least one.
var fakesKnown = []Known{{
	Field:  fieldGeneration,
	Reason: "fakes: metadata.generation is never set (0 after a create, unchanged by a spec change or a deletion)",
}, {
	Sequence: "*/generateName",
	Reason:   `fakes: no generateName: the object is stored as "", and a second create is AlreadyExists`,
}, {
	Sequence: "*/deleteCollection",
	Reason:   "fakes: delete-collection deletes nothing",
}, {
	Sequence: "*/delete",
	Reason:   "fakes: an object with finalizers is deleted at once (no deletionTimestamp); the requests after it find none",
}, {
	Sequence: "*/apply",
	Reason:   "fakes: an apply cannot create (the object tracker applies as a strategic merge into the stored object); the requests after it find none",
}, {
	Sequence: "Pod/graceful",
	Reason:   "fakes: no graceful deletion: a Pod bound to a node is deleted at once",
}, {
	Field:  fieldStored,
	Reason: "fakes: no resourceVersion: a write that changes the object keeps it (\"\")",
}, {
	Sequence: "*/lifecycle",
	Field:    fieldStatus,
	Reason:   "fakes: an update of the main resource writes the status (the server keeps the stored one)",
}, {
	Request: "strategic merge patch spec",
	Reason:  "fakes: a custom resource takes a strategic-merge patch (the server refuses it, 415)",
}, {
	Sequence: "*/lifecycle",
	Field:    fieldSpec,
	Reason:   "fakes: a write to /status writes the spec (the server keeps the stored one), until the next write of the spec",
}, {
	Sequence: "*/stale",
	Request:  "update spec from the read before the last update (stale)",
	Reason:   "fakes: no resourceVersion conflicts: an update from a stale read is written",
}, {
	Sequence: "*/stale",
	Request:  "update spec without resourceVersion",
	Reason:   "fakes: a custom resource's update without resourceVersion is written (the server refuses it, 422: custom resources allow no unconditional update)",
}, {
	Sequence: "*/stale",
	Request:  objectsRequest,
	Reason:   "fakes: the stale update and the update without resourceVersion were written",
}, {
	Request: "merge patch /status*",
	Reason:  "fakes: a write to /status of a resource without a status subresource is written (the server: 404)",
}, {
	Sequence: "*/lifecycle",
	Request:  objectsRequest,
	Field:    "* obj: metadata.*",
	Reason:   "fakes: a write to /status writes labels and annotations (the server resets the labels, and a custom resource's annotations, or has no /status)",
}, {
	Sequence: "*/lifecycle",
	Request:  objectsRequest,
	Field:    "* obj: status*",
	Reason:   "fakes: an update of the main resource writes the status: the stored object ends with it",
}, {
	Sequence: "Service/lifecycle",
	Request:  objectsRequest,
	Field:    "Service obj: spec.selector*",
	Reason:   "fakes: apply is a strategic merge (server-side apply replaces a Service's selector, an atomic map, with the applied one)",
}}
