package fuzz

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// op is one request of a sequence, as data: the same op is sent on both
// sides (an update reads the object on its side first, as a controller
// does), and printed as a line of a reproducer.
type op struct {
	Verb string // create, get, list, update, put, patch, apply, delete, deletecollection, getscale, updatescale, patchscale, evict
	Res  int    // index into the sequence's resources
	Name string
	Sub  string // "", "status" (update, patch, apply)
	// Change is what an update, a patch or an apply changes, Value its
	// value's index: spec, status, template, label, unlabel, annotate,
	// finalize, unfinalize, none.
	Change string
	Value  int
	Patch  types.PatchType
	// RV is the resourceVersion an update sends: "" the one read, "none",
	// "stale" (the one before the object's last change).
	RV      string
	DryRun  bool
	Manager string
	Force   bool
	// Policy is the delete's propagation policy ("" none).
	Policy string
	// Grace is the delete's gracePeriodSeconds; -1 for none.
	Grace int64
	// Pre is the delete's precondition: "", "uid" (a wrong one), "rv"
	// (the one read), "stale".
	Pre string
	// Labels and Fields are the selectors of a list or a delete-collection.
	Labels, Fields string
	// GenerateName: a create with generateName "gen-" and no name;
	// Finalizer: a create with a finalizer.
	GenerateName, Finalizer bool
	// Node: a Pod created bound to a node.
	Node bool
}

// String is the op as a reproducer shows it.
func (o op) String() string {
	var b strings.Builder
	b.WriteString(o.Verb)
	if o.Sub != "" {
		b.WriteString(" /" + o.Sub)
	}
	if o.Verb == "patch" {
		b.WriteString(" (" + shortPatch(o.Patch) + ")")
	}
	if o.GenerateName {
		b.WriteString(" generateName=gen-")
	} else if o.Name != "" {
		fmt.Fprintf(&b, " %q", o.Name)
	}
	if o.Change != "" && o.Change != "none" {
		fmt.Fprintf(&b, " %s=%d", o.Change, o.Value)
	}
	var opts []string
	add := func(cond bool, s string) {
		if cond {
			opts = append(opts, s)
		}
	}
	add(o.RV != "", "rv="+o.RV)
	add(o.DryRun, "dryRun")
	add(o.Manager != "", "manager="+o.Manager)
	add(o.Force, "force")
	add(o.Policy != "", "propagation="+o.Policy)
	add(o.Grace >= 0 && (o.Verb == "delete" || o.Verb == "deletecollection"), fmt.Sprintf("grace=%d", o.Grace))
	add(o.Pre != "", "precondition="+o.Pre)
	add(o.Labels != "", "labels="+o.Labels)
	add(o.Fields != "", "fields="+o.Fields)
	add(o.Finalizer, "finalizer")
	add(o.Node, "nodeName=n1")
	if len(opts) > 0 {
		b.WriteString(" [" + strings.Join(opts, " ") + "]")
	}
	return b.String()
}

func shortPatch(pt types.PatchType) string {
	switch pt {
	case types.JSONPatchType:
		return "json"
	case types.MergePatchType:
		return "merge"
	case types.StrategicMergePatchType:
		return "strategic"
	}
	return string(pt)
}

// sequence is a generated sequence: its seed, resources and ops.
type sequence struct {
	seed int64
	res  []resource
	ops  []op
}

// generate makes the sequence of seed: one or two resources, 8 to 15
// requests on objects "a" and "b" of them.
func generate(seed int64) sequence {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	perm := rng.Perm(len(resources))
	n := 1 + rng.IntN(2)
	s := sequence{seed: seed}
	for _, i := range perm[:n] {
		s.res = append(s.res, resources[i])
	}
	length := 8 + rng.IntN(8)
	var made []op // the creates so far: most requests name their objects
	for i := range length {
		o := genOp(rng, s.res, i, made)
		if (o.Verb == "create" || o.Verb == "apply") && !o.GenerateName {
			made = append(made, o)
		}
		s.ops = append(s.ops, o)
	}
	return s
}

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

func chance(rng *rand.Rand, p float64) bool { return rng.Float64() < p }

// genOp makes the i-th op of a sequence on res; made are the creates
// before it, whose objects most requests name.
func genOp(rng *rand.Rand, res []resource, i int, made []op) op {
	ri, name := rng.IntN(len(res)), pick(rng, "a", "a", "b")
	if len(made) > 0 && chance(rng, 0.85) {
		m := made[rng.IntN(len(made))]
		ri, name = m.Res, m.Name
	}
	r := res[ri]
	o := op{Res: ri, Name: name, Grace: -1, Value: i + 1}
	type choice struct {
		verb   string
		weight int
	}
	choices := []choice{{"create", 16}, {"update", 14}, {"patch", 14}, {"apply", 10}, {"delete", 10},
		{"deletecollection", 3}, {"list", 3}, {"get", 2}, {"put", 3}}
	if r.scale {
		choices = append(choices, choice{"getscale", 2}, choice{"updatescale", 4}, choice{"patchscale", 3})
	}
	if r.evict {
		choices = append(choices, choice{"evict", 3})
	}
	if i == 0 {
		choices = []choice{{"create", 4}, {"apply", 1}}
	}
	total := 0
	for _, c := range choices {
		total += c.weight
	}
	x := rng.IntN(total)
	for _, c := range choices {
		if x < c.weight {
			o.Verb = c.verb
			break
		}
		x -= c.weight
	}
	changes := []string{"spec", "spec", "label", "unlabel", "annotate", "finalize", "unfinalize"}
	if r.status != nil {
		changes = append(changes, "status", "status")
	}
	if r.template != nil {
		changes = append(changes, "template")
	}
	if r.spec == nil {
		changes[0], changes[1] = "label", "annotate"
	}
	o.DryRun = chance(rng, 0.12)
	if chance(rng, 0.8) {
		o.Manager = pick(rng, "fuzz-a", "fuzz-b")
	}
	switch o.Verb {
	case "create":
		o.GenerateName = chance(rng, 0.1)
		o.Finalizer = chance(rng, 0.3)
		o.Node = r.evict && chance(rng, 0.3)
	case "update":
		o.Change = pick(rng, changes...)
		if r.status != nil && chance(rng, 0.3) {
			o.Sub = "status"
		}
		o.RV = pick(rng, "", "", "", "none", "stale")
	case "put":
		// An update that sends a whole object without reading it first.
		o.Change = pick(rng, changes...)
		o.RV = pick(rng, "none", "none", "stale")
	case "patch":
		o.Change = pick(rng, changes...)
		o.Patch = pick(rng, types.MergePatchType, types.MergePatchType, types.JSONPatchType, types.StrategicMergePatchType)
		if chance(rng, 0.25) {
			o.Sub = "status"
		}
	case "apply":
		o.Change = pick(rng, append(changes, "none")...)
		if o.Change == "status" || o.Change == "unlabel" || o.Change == "unfinalize" {
			o.Change = "none"
		}
		o.Manager = pick(rng, "fuzz-a", "fuzz-b")
		o.Force = chance(rng, 0.5)
		if r.status != nil && chance(rng, 0.15) {
			o.Sub, o.Change = "status", "status"
		}
	case "delete":
		o.Manager = ""
		o.Policy = pick(rng, "", "", "Background", "Orphan", "Foreground")
		if r.evict && chance(rng, 0.4) {
			o.Grace = pick[int64](rng, 0, 5)
		}
		o.Pre = pick(rng, "", "", "", "rv", "stale", "uid")
	case "deletecollection":
		o.Manager, o.Name = "", ""
		o.Policy = pick(rng, "", "Background", "Orphan", "Foreground")
		o.Labels = pick(rng, "", "app=fuzz", "l1=v", "l1 notin (v)")
		o.Fields = pick(rng, "", "", "metadata.name=a")
	case "list":
		o.Manager, o.Name, o.DryRun = "", "", false
		o.Labels = pick(rng, "", "app=fuzz", "l1=v", "l2", "!l2")
		fields := []string{"", "metadata.name=a", "metadata.name!=a", "spec.nope=x"}
		if r.selectable != "" {
			fields = append(fields, strings.ReplaceAll(r.selectable, "%d", "1"))
		}
		o.Fields = pick(rng, fields...)
	case "get", "getscale":
		o.Manager, o.DryRun = "", false
	case "updatescale":
		o.RV = pick(rng, "", "", "none", "stale")
		o.Value = rng.IntN(4)
	case "patchscale":
		o.Value = rng.IntN(4)
	case "evict":
		o.Manager = ""
	}
	return o
}
