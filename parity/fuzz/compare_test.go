package fuzz

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrltest/ctrltest/parity"
)

// divergence is one difference between the model and the server after a
// request.
type divergence struct {
	// Index is the request's position in the sequence, from 1.
	Index int
	Op    op
	// Kind is the kind of the resource of the request.
	Kind string
	// Field names what differs: "error", "answer: <path>", "list", or an
	// object and what of it: "Deployment/a: resourceVersion",
	// "Deployment/a: generation", "Deployment/a: spec.replicas".
	Field         string
	Model, Server string
	// Known is the known class that accepts it ("" for none).
	Known string
	// Custom: the request's resource is a custom resource.
	Custom bool
	// FieldManaged: the model tracks the managed fields of every write of
	// built-in kinds (fixture.KubeFieldManaged).
	FieldManaged bool
}

// class is what two divergences share when they are the same problem: the
// request's verb (subresource, patch type) and kind, and the field without
// the object's name. Shrinking keeps a divergence of the same class.
func (d divergence) class() string {
	f := d.Field
	if i := strings.Index(f, ": "); i > 0 && strings.Contains(f[:i], "/") {
		f = strings.SplitN(f[:i], "/", 2)[0] + f[i:]
	}
	return opLabel(d.Op) + " " + d.Kind + " | " + f
}

func opLabel(o op) string {
	s := o.Verb
	if o.Sub != "" {
		s += " /" + o.Sub
	}
	if o.Verb == "patch" {
		s += " (" + shortPatch(o.Patch) + ")"
	}
	return s
}

func (d divergence) String() string {
	known := ""
	if d.Known != "" {
		known = " [known: " + d.Known + "]"
	}
	return fmt.Sprintf("#%d %s %s: %s: model %s, server %s%s", d.Index, d.Kind, d.Op, d.Field, d.Model, d.Server, known)
}

// compareStates lists the divergences of one request, from the objects
// before it (on each side) and the states after it.
func compareStates(i int, o op, r resource, fieldManaged bool, beforeM, beforeS map[string]objState, m, s state) []divergence {
	var out []divergence
	add := func(field, mv, sv string) {
		custom := r.custom
		if k, _, ok := strings.Cut(field, "/"); ok && k != r.kind { // another resource's object
			custom = customKinds[k]
		}
		out = append(out, divergence{Index: i, Op: o, Kind: r.kind, Field: field, Model: mv, Server: sv, Custom: custom, FieldManaged: fieldManaged})
	}
	if m.err != s.err {
		add("error", m.err, s.err)
	}
	if m.readErr != s.readErr {
		add("read after", m.readErr, s.readErr)
	}
	if !reflect.DeepEqual(m.names, s.names) {
		add("list", fmt.Sprint(m.names), fmt.Sprint(s.names))
	}
	switch {
	case m.answer == nil && s.answer != nil:
		add("answer", "none", "an object")
	case m.answer != nil && s.answer == nil:
		add("answer", "an object", "none")
	case m.answer != nil:
		if mp, sp := presentMeta(m.answer), presentMeta(s.answer); mp != sp {
			add("answer: metadata set", mp, sp)
		}
		for _, d := range diffFields(m.answer, s.answer) {
			add("answer: "+d.Path, show(d.Fakes, d.InFakes), show(d.Server, d.InServer))
		}
	}
	keys := map[string]bool{}
	for _, mp := range []map[string]objState{beforeM, beforeS, m.objects, s.objects} {
		for k := range mp {
			keys[k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		mo, mok := m.objects[k]
		so, sok := s.objects[k]
		mst, sst := stored(beforeM, m.objects, k), stored(beforeS, s.objects, k)
		if mst != sst {
			field := k + ": resourceVersion"
			if managedOnly(beforeS[k], s.objects[k]) {
				// The server's write changed the managed fields alone.
				field += " (managed fields only)"
			}
			add(field, mst, sst)
		}
		if !mok || !sok {
			continue
		}
		if mo.generation != so.generation {
			add(k+": generation", fmt.Sprint(mo.generation), fmt.Sprint(so.generation))
		}
		if mo.deleting != so.deleting {
			add(k+": deleting", fmt.Sprint(mo.deleting), fmt.Sprint(so.deleting))
		}
		if mo.finalizers != so.finalizers {
			add(k+": finalizers", orNone(mo.finalizers), orNone(so.finalizers))
		}
		if mo.managers != so.managers {
			add(k+": managedFields", orNone(mo.managers), orNone(so.managers))
		}
		for _, d := range diffFields(mo.object, so.object) {
			if d.Path == "metadata.finalizers" || strings.HasPrefix(d.Path, "metadata.finalizers[") {
				continue // compared above
			}
			add(k+": "+d.Path, show(d.Fakes, d.InFakes), show(d.Server, d.InServer))
		}
	}
	return out
}

// presentMeta lists which of the fields each side sets its own way an
// answered object has (parity's comparison ignores their values): a dry
// run's answer has a uid and a creation time but no resourceVersion.
func presentMeta(obj map[string]any) string {
	m, _ := obj["metadata"].(map[string]any)
	var out []string
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := m[k]; ok && v != nil && v != "" {
			out = append(out, k)
		}
	}
	return orNone(strings.Join(out, ","))
}

// managedOnly reports whether a server object changed its managed fields
// and nothing else.
func managedOnly(before, after objState) bool {
	return before.object != nil && after.object != nil && before.rv != after.rv &&
		before.managed != after.managed && reflect.DeepEqual(before.object, after.object) &&
		before.generation == after.generation
}

// stored says how an object changed: created, new resourceVersion, same
// resourceVersion, deleted, absent.
func stored(before, after map[string]objState, k string) string {
	b, bok := before[k]
	a, aok := after[k]
	switch {
	case !bok && !aok:
		return "absent"
	case !bok:
		return "created"
	case !aok:
		return "deleted"
	case a.rv == b.rv:
		return "same resourceVersion"
	}
	return "new resourceVersion"
}

// diffFields compares two normalized objects as parity does, without the
// fields outside metadata only the server set (its defaults: the model
// applies none).
func diffFields(model, server map[string]any) []parity.FieldDiff {
	var out []parity.FieldDiff
	for _, d := range parity.DiffFields(&unstructured.Unstructured{Object: model}, &unstructured.Unstructured{Object: server}) {
		if d.Defaulted() && !strings.HasPrefix(d.Path, "metadata.") {
			continue // a default (defaulting never writes metadata; strategies do)
		}
		out = append(out, d)
	}
	return out
}

func show(v any, present bool) string {
	if !present {
		return "unset"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
