package semantics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// sequence is a list of requests on objects of one resource, run in order
// by run; each request records an Observation.
type sequence struct {
	name string
	run  func(r *runner)
	// writesFields: the sequence writes the resource's spec and status
	// fields (see resource.touched).
	writesFields bool
	// only names the resources the sequence runs on; nil: every one.
	only []string
	// metadata: the sequence runs on the resources reached through the
	// metadata client (which has no create nor update), and only on them.
	metadata bool
}

// runsOn reports whether the sequence runs on res.
func (s sequence) runsOn(res resource) bool {
	if s.metadata != (res.via == "metadata") {
		return false
	}
	return s.only == nil || slices.Contains(s.only, res.name)
}

// The finalizer the sequences put on objects, and the field manager of
// their applies.
const (
	finalizer    = "semantics.ctrltest.dev/keep"
	fieldManager = "semantics"
)

// background is the propagation of every delete: batch/v1 Jobs default to
// orphaning their pods, for which the server adds the "orphan" finalizer
// and waits for a garbage collector that parity's server does not run.
var background = metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}

var sequences = []sequence{
	{name: "lifecycle", run: lifecycle, writesFields: true},
	{name: "generateName", run: generateName},
	{name: "stale", run: stale, writesFields: true},
	{name: "apply", run: applies, writesFields: true},
	{name: "delete", run: deletes},
	{name: "deleteCollection", run: deleteCollection},
	{name: "graceful", run: graceful, only: []string{"Pod"}},
	{name: "metadata", run: metadataRequests, metadata: true},
}

// lifecycle creates an object, then writes it in every way a controller
// does: updates (unchanged, of the spec, of the metadata, of the status,
// unchanged again), patches of each type (one unchanged), and server-side
// apply (again unchanged).
func lifecycle(r *runner) {
	c, ctx, spec := r.c, r.ctx, r.res.spec
	r.step("create", "obj", func() (runtime.Object, error) { return c.create(ctx, r.res.object("obj")) })
	r.step("create again", "obj", func() (runtime.Object, error) { return c.create(ctx, r.res.object("obj")) })
	r.step("update, unchanged", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(map[string]any) {})
	})
	r.step("update spec", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) { r.set(u, spec.path, spec.value(1)) })
	})
	r.step("update a label", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) { r.set(u, []string{"metadata", "labels", "meta"}, "yes") })
	})
	r.step("update an annotation", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) { r.set(u, []string{"metadata", "annotations", "meta"}, "yes") })
	})
	statusWrite := func(u map[string]any) {
		if st := r.res.status; st != nil {
			r.set(u, st.path, st.value(1))
		}
		r.set(u, spec.path, spec.value(2))
		r.set(u, []string{"metadata", "labels", "status-write"}, "yes")
		r.set(u, []string{"metadata", "annotations", "status-write"}, "yes")
	}
	if r.res.status != nil {
		r.step("update /status (and spec, labels, annotations)", "obj", func() (runtime.Object, error) {
			return r.updateRead("obj", c.updateStatus, statusWrite)
		})
	} else {
		// The resource has no status, and its typed client no
		// UpdateStatus: a merge patch is the one request it can send to
		// /status.
		r.step("merge patch /status (and spec, labels, annotations)", "obj", func() (runtime.Object, error) {
			body := map[string]any{}
			statusWrite(body)
			return c.patch(ctx, "obj", types.MergePatchType, r.json(body), metav1.PatchOptions{}, "status")
		})
	}
	if r.res.status != nil {
		r.step("update /status, unchanged", "obj", func() (runtime.Object, error) {
			return r.updateRead("obj", c.updateStatus, func(map[string]any) {})
		})
	} else {
		r.step("merge patch /status, empty", "obj", func() (runtime.Object, error) {
			return c.patch(ctx, "obj", types.MergePatchType, []byte("{}"), metav1.PatchOptions{}, "status")
		})
	}
	r.step("merge patch /status", "obj", func() (runtime.Object, error) {
		body := map[string]any{"metadata": map[string]any{"labels": map[string]any{"status-patch": "yes"}}}
		if st := r.res.status; st != nil {
			body = r.nested(st.path, st.value(3))
		}
		return c.patch(ctx, "obj", types.MergePatchType, r.json(body), metav1.PatchOptions{}, "status")
	})
	r.step("update status and a label through the main resource", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) {
			if st := r.res.status; st != nil {
				r.set(u, st.path, st.value(2))
			}
			r.set(u, []string{"metadata", "labels", "main-write"}, "yes")
		})
	})
	r.step("JSON patch spec", "obj", func() (runtime.Object, error) {
		op := []map[string]any{{"op": "add", "path": "/" + strings.Join(spec.path, "/"), "value": spec.value(3)}}
		return c.patch(ctx, "obj", types.JSONPatchType, r.json(op), metav1.PatchOptions{})
	})
	r.step("merge patch spec", "obj", func() (runtime.Object, error) {
		return c.patch(ctx, "obj", types.MergePatchType, r.json(r.nested(spec.path, spec.value(4))), metav1.PatchOptions{})
	})
	r.step("merge patch spec again, unchanged", "obj", func() (runtime.Object, error) {
		return c.patch(ctx, "obj", types.MergePatchType, r.json(r.nested(spec.path, spec.value(4))), metav1.PatchOptions{})
	})
	// Custom resources refuse strategic-merge patches (415): the step runs
	// on them too, as the refusal is the server's answer to model.
	r.step("strategic merge patch spec", "obj", func() (runtime.Object, error) {
		return c.patch(ctx, "obj", types.StrategicMergePatchType, r.json(r.nested(spec.path, spec.value(5))), metav1.PatchOptions{})
	})
	apply := func() (runtime.Object, error) {
		body := r.nested(spec.path, spec.value(6))
		body["apiVersion"], body["kind"] = r.res.apiVersion, r.res.name
		body["metadata"] = map[string]any{"name": "obj"}
		return c.patch(ctx, "obj", types.ApplyPatchType, r.json(body), metav1.PatchOptions{FieldManager: fieldManager, Force: ptr.To(true)})
	}
	r.step("apply spec", "obj", apply)
	r.step("apply again, unchanged", "obj", apply)
}

// applies writes an object with server-side apply only: an apply that
// creates it, one that changes nothing, one that changes the spec, one of
// another field manager that conflicts, the same forced, and an update.
func applies(r *runner) {
	c, ctx, spec := r.c, r.ctx, r.res.spec
	apply := func(manager string, force bool, value int) func() (runtime.Object, error) {
		return func() (runtime.Object, error) {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(r.res.object("obj"))
			if err != nil {
				r.t.Fatalf("semantics: %v", err)
			}
			u["apiVersion"], u["kind"] = r.res.apiVersion, r.res.name
			delete(u, "status")
			// As an apply configuration has them: no nulls (a Foo's
			// replicas, a creationTimestamp), which the server refuses
			// in an apply (422).
			dropNulls(u)
			if value > 0 {
				r.set(u, spec.path, spec.value(value))
			}
			opts := metav1.PatchOptions{FieldManager: manager}
			if force {
				opts.Force = ptr.To(true)
			}
			return c.patch(ctx, "obj", types.ApplyPatchType, r.json(u), opts)
		}
	}
	r.step("apply, creating", "obj", apply(fieldManager, false, 0))
	r.step("apply again, unchanged", "obj", apply(fieldManager, false, 0))
	r.step("apply spec", "obj", apply(fieldManager, false, 1))
	r.step("apply spec by another manager (conflict)", "obj", apply("other", false, 2))
	r.step("apply spec by another manager, forced", "obj", apply("other", true, 3))
	r.step("update spec", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) { r.set(u, spec.path, spec.value(4)) })
	})
}

// dropNulls removes the null fields of a JSON object, recursively.
func dropNulls(u map[string]any) {
	for k, v := range u {
		switch v := v.(type) {
		case nil:
			delete(u, k)
		case map[string]any:
			dropNulls(v)
		case []any:
			for _, e := range v {
				if m, ok := e.(map[string]any); ok {
					dropNulls(m)
				}
			}
		}
	}
}

// graceful deletes a Pod bound to a node: it stays, being deleted, for
// its grace period (no kubelet confirms), until a delete with a zero grace
// period.
func graceful(r *runner) {
	c, ctx := r.c, r.ctx
	r.step("create bound to a node", "obj", func() (runtime.Object, error) {
		obj := r.edit(r.res.object("obj"), func(u map[string]any) { r.set(u, []string{"spec", "nodeName"}, "node-1") })
		return c.create(ctx, obj)
	})
	r.step("delete", "obj", func() (runtime.Object, error) { return nil, c.delete(ctx, "obj", background) })
	r.step("delete with gracePeriodSeconds 0", "obj", func() (runtime.Object, error) {
		opts := *background.DeepCopy()
		opts.GracePeriodSeconds = ptr.To[int64](0)
		return nil, c.delete(ctx, "obj", opts)
	})
}

// generateName creates two objects from one generateName.
func generateName(r *runner) {
	create := func() (runtime.Object, error) {
		obj := r.res.object("")
		r.meta(obj).SetGenerateName("obj-")
		return r.c.create(r.ctx, obj)
	}
	r.step("create with generateName", "", create)
	r.step("create with generateName again", "", create)
}

// stale updates an object from an old read, and without a resourceVersion.
func stale(r *runner) {
	c, ctx, spec := r.c, r.ctx, r.res.spec
	r.step("create", "obj", func() (runtime.Object, error) { return c.create(ctx, r.res.object("obj")) })
	old, oldErr := c.get(ctx, "obj")
	r.step("update spec", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) { r.set(u, spec.path, spec.value(1)) })
	})
	r.step("update spec from the read before the last update (stale)", "obj", func() (runtime.Object, error) {
		if oldErr != nil {
			return nil, &readError{oldErr}
		}
		return c.update(ctx, r.edit(old, func(u map[string]any) { r.set(u, spec.path, spec.value(2)) }))
	})
	r.step("update spec without resourceVersion", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) {
			r.set(u, spec.path, spec.value(3))
			unstructured.RemoveNestedField(u, "metadata", "resourceVersion")
		})
	})
}

// deletes deletes an object without finalizers, and one with: it stays,
// being deleted, until an update removes its finalizer.
func deletes(r *runner) {
	c, ctx := r.c, r.ctx
	r.step("create", "plain", func() (runtime.Object, error) { return c.create(ctx, r.res.object("plain")) })
	r.step("delete", "plain", func() (runtime.Object, error) { return nil, c.delete(ctx, "plain", background) })
	r.step("create with a finalizer", "obj", func() (runtime.Object, error) {
		obj := r.res.object("obj")
		r.meta(obj).SetFinalizers([]string{finalizer})
		return c.create(ctx, obj)
	})
	r.step("delete, finalizer pending", "obj", func() (runtime.Object, error) { return nil, c.delete(ctx, "obj", background) })
	r.step("delete again", "obj", func() (runtime.Object, error) { return nil, c.delete(ctx, "obj", background) })
	r.step("update labels while deleting", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) { r.set(u, []string{"metadata", "labels", "meta"}, "yes") })
	})
	r.step("update removing the finalizer", "obj", func() (runtime.Object, error) {
		return r.updateRead("obj", c.update, func(u map[string]any) {
			unstructured.RemoveNestedField(u, "metadata", "finalizers")
		})
	})
}

// deleteCollection deletes two of three objects by a label selector.
func deleteCollection(r *runner) {
	c, ctx := r.c, r.ctx
	for _, name := range []string{"in-1", "in-2", "out"} {
		r.step("create", name, func() (runtime.Object, error) {
			obj := r.res.object(name)
			if strings.HasPrefix(name, "in") {
				r.meta(obj).GetLabels()["set"] = "in"
			}
			return c.create(ctx, obj)
		})
	}
	r.step("delete collection set=in", "in-1", func() (runtime.Object, error) {
		if c.deleteCollection == nil {
			return nil, errNoDeleteCollection
		}
		return nil, c.deleteCollection(ctx, background, metav1.ListOptions{LabelSelector: "set=in"})
	})
}

// errNoDeleteCollection is the observation of a delete-collection on a
// resource whose typed client has none. (Every client here has one: the
// Service interface lacks it, but its concrete client, as the fake's,
// has it, and the server serves it.)
var errNoDeleteCollection = errors.New("not sent: the typed client has no DeleteCollection")

// runner runs a sequence's requests on one side and observes each.
type runner struct {
	t   testing.TB
	ctx context.Context
	c   *client
	res resource
	obs []Observation
}

// step sends one request and records what it did to the object name (the
// object the request returned, when name is "": a create with
// generateName).
func (r *runner) step(request, name string, send func() (runtime.Object, error)) {
	var before, after *stored
	var beforeErr, afterErr, err error
	var got runtime.Object
	if name != "" { // a create with generateName: a new object
		before, beforeErr = r.state(name)
	}
	if beforeErr == nil {
		got, err = send()
	} else {
		err = &readError{beforeErr}
	}
	o := Observation{Request: request, Err: errText(err)}
	if name == "" {
		o.Name = "(none)"
		if got != nil {
			m := r.meta(got)
			o.Name = generatedName(m.GetGenerateName(), m.GetName())
			after, afterErr = r.state(m.GetName())
		}
	} else {
		after, afterErr = r.state(name)
	}
	switch {
	case afterErr != nil:
		o.Stored = "unreadable: " + errText(afterErr)
	case before == nil && after == nil:
		o.Stored = storedAbsent
	case before == nil:
		o.Stored = storedCreated
	case after == nil:
		o.Stored = storedDeleted
	case before.meta.GetResourceVersion() == after.meta.GetResourceVersion():
		o.Stored = storedSame
	default:
		o.Stored = storedChanged
	}
	o.Spec, o.Status = "-", "-"
	if after != nil {
		o.Generation = after.meta.GetGeneration()
		o.Deleting = after.meta.GetDeletionTimestamp() != nil
		o.Spec = r.value(after, r.res.spec)
		if r.res.status != nil {
			o.Status = r.value(after, r.res.status)
		}
	}
	r.obs = append(r.obs, o)
}

// The values of Observation.Stored.
const (
	storedCreated = "created"
	storedChanged = "new resourceVersion"
	storedSame    = "same resourceVersion"
	storedDeleted = "deleted"
	storedAbsent  = "absent"
)

// stored is an object as read, with its metadata.
type stored struct {
	obj  runtime.Object
	meta metav1.Object
}

// state reads the stored object name: nil when there is none.
func (r *runner) state(name string) (*stored, error) {
	obj, err := r.c.get(r.ctx, name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &stored{obj: obj, meta: r.meta(obj)}, nil
}

// value returns the JSON value of field in obj, "unset" when absent.
func (r *runner) value(obj *stored, f *field) string {
	r.t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj.obj)
	if err != nil {
		r.t.Fatalf("semantics: %T to JSON: %v", obj.obj, err)
	}
	v, ok, _ := unstructured.NestedFieldNoCopy(u, f.path...)
	if !ok {
		return "unset"
	}
	return string(r.json(v))
}

// updateRead reads name, edits it, and sends it with write (an update, or
// an update of /status).
func (r *runner) updateRead(name string, write func(context.Context, runtime.Object) (runtime.Object, error), change func(map[string]any)) (runtime.Object, error) {
	if write == nil {
		return nil, errors.New("not sent: the typed client has no such method")
	}
	obj, err := r.c.get(r.ctx, name)
	if err != nil {
		return nil, &readError{err}
	}
	return write(r.ctx, r.edit(obj, change))
}

// readError is the failed read before a request, which was not sent.
type readError struct{ err error }

func (e *readError) Error() string { return "not sent: the read before it failed: " + e.err.Error() }

// errText is an error as observations compare it: the API status's reason
// and code ("Conflict (409)"), not its message.
func errText(err error) string {
	var re *readError
	if errors.As(err, &re) {
		return "not sent: read failed: " + errText(re.err)
	}
	if err == nil {
		return ""
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		return fmt.Sprintf("%s (%d)", s.Reason, s.Code)
	}
	return "error: " + err.Error()
}

// generatedName shows a name made from generateName as "<generateName>*".
func generatedName(generate, name string) string {
	if generate != "" && strings.HasPrefix(name, generate) && len(name) > len(generate) {
		return generate + "*"
	}
	return fmt.Sprintf("%q", name)
}

// edit returns a copy of obj changed by change, which edits its JSON form.
func (r *runner) edit(obj runtime.Object, change func(map[string]any)) runtime.Object {
	r.t.Helper()
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		r.t.Fatalf("semantics: %T to JSON: %v", obj, err)
	}
	change(u)
	out := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, out); err != nil {
		r.t.Fatalf("semantics: JSON to %T: %v", obj, err)
	}
	return out
}

// set sets the field at path of a JSON object.
func (r *runner) set(u map[string]any, path []string, value any) {
	r.t.Helper()
	if err := unstructured.SetNestedField(u, runtime.DeepCopyJSONValue(value), path...); err != nil {
		r.t.Fatalf("semantics: setting %v: %v", path, err)
	}
}

// nested returns the JSON object that holds value at path.
func (r *runner) nested(path []string, value any) map[string]any {
	r.t.Helper()
	u := map[string]any{}
	r.set(u, path, value)
	return u
}

func (r *runner) json(v any) []byte {
	r.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		r.t.Fatalf("semantics: %v", err)
	}
	return b
}

func (r *runner) meta(obj runtime.Object) metav1.Object {
	r.t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		r.t.Fatalf("semantics: %T has no metadata: %v", obj, err)
	}
	return m
}
