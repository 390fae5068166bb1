package fuzz

import (
	"slices"
	"strings"
	"testing"
)

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
	reason: "the model records managed fields for server-side applies only (fixture.AppliesOnly, the default); " +
		"the server records every write's manager, the client's user agent when the request names none",
	match: func(d divergence) bool {
		return unmanaged(d) && (strings.HasSuffix(d.Field, ": managedFields") ||
			d.Field == "error" && strings.Contains(d.Model, "Apply failed with") && strings.Contains(d.Server, "Apply failed with"))
	},
}, {
	name: "managed fields of /scale writes",
	reason: "the server's scale subresource records a write through a field manager of the Scale, whose fields it maps " +
		"onto the parent's (managedFieldsHandler); the model records the parent's update in an entry for /scale, " +
		"which differs (fixture.EveryWrite only)",
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
		"the model validates nothing of its own (fixture.WithValidation and the crd module bring validation); " +
		"where both refuse a write, the server's answer lists its validation's errors beside the model's",
	match: func(d divergence) bool {
		// The model's own 422s (finalizers of an object being deleted,
		// resourceVersion) are not validation it lacks.
		return d.Field == "error" && (d.Model == "ok" && strings.HasPrefix(d.Server, "422 Invalid:") &&
			!strings.Contains(d.Server, "metadata.finalizers") && !strings.Contains(d.Server, "metadata.resourceVersion") ||
			moreInvalid(d.Model, d.Server))
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

// moreInvalid reports whether the server refused a write as invalid for
// the reasons the model gave and more: the model's causes (a finalizer
// added to an object being deleted) are among the server's, which lists
// those of its validation too.
func moreInvalid(model, server string) bool {
	const invalid = " is invalid: "
	mi, si := strings.Index(model, invalid), strings.Index(server, invalid)
	if !strings.HasPrefix(model, "422 Invalid:") || !strings.HasPrefix(server, "422 Invalid:") || mi < 0 || si < 0 ||
		model[:mi] != server[:si] {
		return false
	}
	m, s := model[mi+len(invalid):], server[si+len(invalid):]
	return len(s) > len(m) && strings.HasPrefix(s, "[") && strings.Contains(s, m)
}

// TestClassify: a known class accepts its divergences, and a tainting one
// what follows from it on its object, in a list too; nothing else.
func TestClassify(t *testing.T) {
	const podInvalid = `422 Invalid: Pod "a" is invalid: spec: Forbidden: pod updates may not change fields other than ...`
	put := divergence{Index: 2, Op: op{Verb: "put", Name: "a"}, Kind: "Pod", Field: "error", Model: "ok", Server: podInvalid}
	list := func(model, server string) divergence {
		return divergence{Index: 3, Op: op{Verb: "list"}, Kind: "Pod", Field: "list", Model: model, Server: server}
	}
	finalizers := `Job.batch "a" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"f"}`
	for _, c := range []struct {
		name string
		divs []divergence
		want []string // each divergence's class, "" for unknown
	}{{
		name: "a list missing a tainted object",
		divs: []divergence{put, list("[]", "[a]")},
		want: []string{"validation", "validation"},
	}, {
		name: "a list missing an object nothing tainted",
		divs: []divergence{put, list("[a]", "[a b]")},
		want: []string{"validation", ""},
	}, {
		name: "a list before the taint",
		divs: []divergence{list("[]", "[a]"), put},
		want: []string{"", "validation"},
	}, {
		name: "the server's validation errors beside the model's",
		divs: []divergence{{Op: op{Verb: "put", Name: "a"}, Kind: "Job", Field: "error",
			Model: "422 Invalid: " + finalizers, Server: "422 Invalid: Job.batch \"a\" is invalid: [" + strings.TrimPrefix(finalizers, `Job.batch "a" is invalid: `) + ", spec.selector: Required value]"}},
		want: []string{"validation"},
	}, {
		name: "another 422",
		divs: []divergence{{Op: op{Verb: "put", Name: "a"}, Kind: "Job", Field: "error",
			Model: "422 Invalid: " + finalizers, Server: `422 Invalid: Job.batch "a" is invalid: [spec.selector: Required value]`}},
		want: []string{""},
	}} {
		t.Run(c.name, func(t *testing.T) {
			classify(c.divs, map[string]int{})
			var got []string
			for _, d := range c.divs {
				got = append(got, d.Known)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("classes %q; want %q", got, c.want)
			}
		})
	}
}
