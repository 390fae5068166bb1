package fuzz

import "strings"

// knownClass accepts divergences of one class, with the reason they are
// not fixed in the model.
type knownClass struct {
	name, reason string
	match        func(d divergence) bool
	// taints: the class leaves the object different on the two sides;
	// later divergences of that object in the sequence follow from it.
	taints bool
}

// unmanaged reports whether the model records the managed fields of d's
// ordinary writes only for applies: the default world, and custom
// resources everywhere.
func unmanaged(d divergence) bool { return !d.FieldManaged || d.Custom }

// knownClasses are the divergence classes the fuzzer accepts; the first
// that matches a divergence accepts it. docs/parity.md lists them.
var knownClasses = []knownClass{{
	name: "managed fields of ordinary writes",
	reason: "the model records managed fields for server-side applies only (fixture.ServerSideApply); " +
		"the server records every write's manager, the client's user agent when the request names none",
	match: func(d divergence) bool {
		return unmanaged(d) && (strings.HasSuffix(d.Field, ": managedFields") ||
			d.Field == "error" && strings.Contains(d.Model, "Apply failed with") && strings.Contains(d.Server, "Apply failed with"))
	},
}, {
	name: "managed fields of /scale writes",
	reason: "the server's scale subresource records a write through a field manager of the Scale, whose fields it maps " +
		"onto the parent's (managedFieldsHandler); the model records the parent's update in an entry for /scale, " +
		"which differs (fixture.KubeFieldManaged only)",
	match: func(d divergence) bool {
		return (d.Op.Verb == "updatescale" || d.Op.Verb == "patchscale") && strings.HasSuffix(d.Field, ": managedFields") ||
			strings.Contains(d.Model, " Update /scale") || strings.Contains(d.Model, `with subresource "scale"`)
	},
	taints: true,
}, {
	name: "applies that own what ordinary writes took",
	reason: "the model's apply still owns a field an update or patch of another manager has since set (the server moved " +
		"its ownership to that manager): the model's apply conflicts, or removes or keeps fields, where the server's does not",
	match: func(d divergence) bool {
		return unmanaged(d) && d.Op.Verb == "apply" && (d.Field == "error" && strings.Contains(d.Model, "409 Conflict: Apply failed with") ||
			d.Field != "error")
	},
	taints: true,
}, {
	name: "writes that change managed fields only",
	reason: "a write that changes nothing but its manager's entry (a /scale or a status write through the main resource " +
		"whose value the strategy drops) is a no-op on the model and a new resourceVersion on the server, which records the manager",
	match:  func(d divergence) bool { return strings.HasSuffix(d.Field, ": resourceVersion (managed fields only)") },
	taints: true,
}, {
	name: "applies that conflict with an update's manager",
	reason: "the server's apply conflicts with the manager of an ordinary write (an update or patch that set the field); " +
		"the model, which records no such manager, applies",
	match: func(d divergence) bool {
		return unmanaged(d) && d.Op.Verb == "apply" && d.Field == "error" && !strings.Contains(d.Model, "409 Conflict: Apply failed with") &&
			strings.Contains(d.Server, "409 Conflict: Apply failed with")
	},
	taints: true,
}, {
	name: "the dynamic client's answer to a dry-run patch of /scale",
	reason: "the fixture's dynamic client answers a patch of /scale with the Scale it reads after it, the stored one " +
		"for a dry run (the model answers a typed client's patch of /scale with an empty parent, as the real client decodes it)",
	match: func(d divergence) bool {
		return d.Op.Verb == "patchscale" && d.Op.DryRun && strings.HasPrefix(d.Field, "answer")
	},
}, {
	name: "validation",
	reason: "the server refuses an object its validation forbids (a field a later write may not remove, a value out of range); " +
		"the model validates nothing of its own (fixture.WithValidation and the crd module bring validation)",
	match: func(d divergence) bool {
		// The model's own 422s (finalizers of an object being deleted,
		// resourceVersion) are not validation it lacks.
		return d.Field == "error" && d.Model == "ok" && strings.HasPrefix(d.Server, "422 Invalid:") &&
			!strings.Contains(d.Server, "metadata.finalizers") && !strings.Contains(d.Server, "metadata.resourceVersion")
	},
	taints: true,
}, {
	name: "status writes that create",
	reason: "an update or apply of /status of a missing object creates it on the server when the resource's strategy allows " +
		"create on update (Services, Leases, Roles, ...), then validates the whole object; the model answers 404 " +
		"(it validates nothing of its own)",
	match: func(d divergence) bool {
		return d.Op.Sub == "status" && d.Op.Verb != "patch" && d.Field == "error" && strings.HasPrefix(d.Model, "404 NotFound") && !strings.HasPrefix(d.Server, "404")
	},
	taints: true,
}}
