package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// side is one of the two worlds a sequence runs on: the model (the
// fixture's dynamic and kubernetes clients) or the server.
type side struct {
	name string
	dyn  dynamic.Interface
	kube kubernetes.Interface
	ns   string
	// rvs are the resourceVersions each object had, oldest first (for
	// stale updates); gen maps names made from generateName to "gen-#n",
	// in the order the side made them.
	rvs  map[string][]string
	gen  map[string]string
	uids map[string]string
	// elapsed and requests are the time spent in, and the number of, the
	// sequence's requests (not the reads that observe them).
	elapsed  time.Duration
	requests int
	// heap, when set, counts what the requests allocate.
	heap *heapCount
}

// heapCount is what requests allocated: objects (as testing's allocs/op
// counts them, tiny ones too) and bytes.
type heapCount struct {
	objects, bytes uint64
	samples        []metrics.Sample
}

func newHeapCount() *heapCount {
	return &heapCount{samples: []metrics.Sample{
		{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/tiny/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}}
}

// read returns the allocations of the process so far.
func (h *heapCount) read() (objects, bytes uint64) {
	metrics.Read(h.samples)
	return h.samples[0].Value.Uint64() + h.samples[1].Value.Uint64(), h.samples[2].Value.Uint64()
}

// timer starts timing a request; the func it returns stops it. With
// s.heap, the request's allocations are counted too (outside the time).
func (s *side) timer() func() {
	var objects, bytes uint64
	if s.heap != nil {
		objects, bytes = s.heap.read()
	}
	start := time.Now()
	return func() {
		s.elapsed += time.Since(start)
		s.requests++
		if s.heap != nil {
			o, b := s.heap.read()
			s.heap.objects += o - objects
			s.heap.bytes += b - bytes
		}
	}
}

// state is what one request did on a side: its answer and the objects of
// the sequence after it.
type state struct {
	err     string
	answer  map[string]any // the object answered, normalized; nil for none
	names   []string       // a list's names
	objects map[string]objState
	readErr string
}

// objState is a stored object, normalized, and what is compared beside
// its fields.
type objState struct {
	rv         string
	generation int64
	deleting   bool
	finalizers string
	managers   string
	// managed is the managed fields entries in full but for their
	// times: what a write that changed them alone changed.
	managed string
	object  map[string]any
}

var (
	uidPattern = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	rvPattern  = regexp.MustCompile(`((?:ResourceVersion in the precondition|in record) )\(\d+\)`)
	// storeRVPattern is the stored resourceVersion a StorageError names.
	storeRVPattern = regexp.MustCompile(`(ResourceVersion in object meta: )\d+`)
)

const (
	finalizerPrefix = "fuzz.ctrltest.dev/f"
	badUID          = "00000000-0000-0000-0000-00000000dead"
)

func (s *side) resource(r resource) dynamic.ResourceInterface {
	return s.dyn.Resource(r.gvr).Namespace(s.ns)
}

// key names an object of r in the observations: "Deployment/a".
func key(r resource, name string) string { return r.kind + "/" + name }

// snapshot reads every object of the sequence's resources.
func (s *side) snapshot(ctx context.Context, seq sequence) (map[string]objState, error) {
	out := map[string]objState{}
	for _, r := range seq.res {
		list, err := s.resource(r).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing %s: %v", r.gvr.Resource, err)
		}
		for i := range list.Items {
			u := &list.Items[i]
			name := s.shownName(u)
			k := key(r, name)
			st := objState{
				rv:         u.GetResourceVersion(),
				generation: u.GetGeneration(),
				deleting:   u.GetDeletionTimestamp() != nil,
				finalizers: strings.Join(u.GetFinalizers(), ","),
				managers:   managers(u),
				managed:    managedEntries(u),
				object:     normalize(u, name),
			}
			out[k] = st
			if rvs := s.rvs[k]; len(rvs) == 0 || rvs[len(rvs)-1] != st.rv {
				s.rvs[k] = append(rvs, st.rv)
			}
			s.uids[k] = string(u.GetUID())
		}
	}
	return out, nil
}

// shownName is the object's name, or "gen-#n" for one made from
// generateName.
func (s *side) shownName(u *unstructured.Unstructured) string {
	name := u.GetName()
	if u.GetGenerateName() == "" || !strings.HasPrefix(name, u.GetGenerateName()) {
		return name
	}
	if g, ok := s.gen[name]; ok {
		return g
	}
	g := fmt.Sprintf("%s#%d", u.GetGenerateName(), len(s.gen)+1)
	s.gen[name] = g
	return g
}

// managers shows the managed fields' entries without their fields and
// times: "fuzz-a Apply; fuzz-b Update /status".
func managers(u *unstructured.Unstructured) string {
	var out []string
	for _, m := range u.GetManagedFields() {
		e := m.Manager + " " + string(m.Operation)
		if m.Subresource != "" {
			e += " /" + m.Subresource
		}
		out = append(out, e)
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// managedEntries is u's managed fields entries, without their times, as
// JSON.
func managedEntries(u *unstructured.Unstructured) string {
	entries := u.GetManagedFields()
	for i := range entries {
		entries[i].Time = nil
	}
	b, err := json.Marshal(entries)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// volatileKeys are the keys whose values a server makes at random or from
// its clock, anywhere in an object.
var volatileKeys = map[string]bool{
	"lastTransitionTime": true, "lastUpdateTime": true, "lastHeartbeatTime": true, "lastProbeTime": true,
	"batch.kubernetes.io/controller-uid": true, "controller-uid": true,
}

// normalize returns the object's JSON without what differs between any
// two servers: uid, resourceVersion, creation time, namespace, managed
// fields (compared apart), generation (compared apart), the deletion
// time (present or not), a generated name, condition times and a Job's
// uid labels.
func normalize(u *unstructured.Unstructured, name string) map[string]any {
	out := runtime.DeepCopyJSON(u.Object)
	m, _ := out["metadata"].(map[string]any)
	if m != nil {
		for _, k := range []string{"namespace", "managedFields", "generation", "selfLink"} {
			delete(m, k)
		}
		// Each side's own values, compared as present or not (a dry
		// run's answer has a uid and a creation time, no resourceVersion).
		for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
			if v, ok := m[k]; ok && v != nil && v != "" {
				m[k] = "(set)"
			}
		}
		if _, ok := m["deletionTimestamp"]; ok {
			m["deletionTimestamp"] = "(set)"
		}
		if real, _ := m["name"].(string); name != "" && real != name {
			// A Job's labels carry its name: show the generated one
			// wherever it appears.
			out = renamed(out, real, name).(map[string]any)
			m = out["metadata"].(map[string]any)
			m["name"] = name
		}
	}
	scrub(out)
	return out
}

// renamed replaces each string equal to from by to.
func renamed(v any, from, to string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = renamed(x, from, to)
		}
	case []any:
		for i, x := range v {
			v[i] = renamed(x, from, to)
		}
	case string:
		if v == from {
			return to
		}
	}
	return v
}

func scrub(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if volatileKeys[k] {
				if k == "controller-uid" || strings.HasSuffix(k, "/controller-uid") {
					delete(v, k)
				} else {
					v[k] = "(time)"
				}
				continue
			}
			scrub(x)
		}
	case []any:
		for _, x := range v {
			scrub(x)
		}
	}
}

// errText shows an error as compared: code, reason and message, the
// side's namespace as "<ns>".
func (s *side) errText(err error) string {
	if err == nil {
		return "ok"
	}
	if re := (*readError)(nil); errors.As(err, &re) {
		return "not sent, the read failed: " + s.errText(re.err)
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		st := status.Status()
		msg := strings.ReplaceAll(st.Message, s.ns, "<ns>")
		for name, g := range s.gen {
			msg = strings.ReplaceAll(msg, name, g)
		}
		// uids and resourceVersions are each side's own.
		msg = uidPattern.ReplaceAllString(msg, "<uid>")
		msg = rvPattern.ReplaceAllString(msg, "$1(<rv>)")
		msg = storeRVPattern.ReplaceAllString(msg, "$1<rv>")
		return fmt.Sprintf("%d %s: %s", st.Code, st.Reason, msg)
	}
	return "error: " + strings.ReplaceAll(err.Error(), s.ns, "<ns>")
}

// do sends o on the side and observes what it did.
func (s *side) do(ctx context.Context, seq sequence, o op) state {
	r := seq.res[o.Res]
	var st state
	ans, names, err := s.send(ctx, r, o)
	st.err = s.errText(err)
	st.names = names
	if ans != nil && err == nil {
		name := ans.GetName()
		if g := ans.GetGenerateName(); o.DryRun && g != "" && strings.HasPrefix(name, g) {
			// A dry run's generated name is not taken: the model gives
			// the next create the same one, the server another.
			name = g + "(dry run)"
		} else {
			name = s.shownName(ans)
		}
		st.answer = normalize(ans, name)
	}
	objs, rerr := s.snapshot(ctx, seq)
	if rerr != nil {
		st.readErr = rerr.Error()
	}
	st.objects = objs
	return st
}

// send sends the request of o; a read it needs first that fails is its
// error.
func (s *side) send(ctx context.Context, r resource, o op) (*unstructured.Unstructured, []string, error) {
	c := s.resource(r)
	var dry []string
	if o.DryRun {
		dry = []string{metav1.DryRunAll}
	}
	timed := func(fn func() (*unstructured.Unstructured, error)) (*unstructured.Unstructured, []string, error) {
		stop := s.timer()
		u, err := fn()
		stop()
		return u, nil, err
	}
	switch o.Verb {
	case "create":
		obj := &unstructured.Unstructured{Object: r.object(o.Name)}
		if o.GenerateName {
			obj.SetName("")
			obj.SetGenerateName("gen-")
		}
		if o.Finalizer {
			obj.SetFinalizers([]string{finalizerPrefix + "0"})
		}
		if o.Node {
			_ = unstructured.SetNestedField(obj.Object, "n1", "spec", "nodeName")
		}
		return timed(func() (*unstructured.Unstructured, error) {
			return c.Create(ctx, obj, metav1.CreateOptions{DryRun: dry, FieldManager: o.Manager})
		})
	case "get":
		return timed(func() (*unstructured.Unstructured, error) { return c.Get(ctx, o.Name, metav1.GetOptions{}) })
	case "list":
		stop := s.timer()
		list, err := c.List(ctx, metav1.ListOptions{LabelSelector: o.Labels, FieldSelector: o.Fields})
		stop()
		if err != nil {
			return nil, nil, err
		}
		names := []string{}
		for i := range list.Items {
			names = append(names, s.shownName(&list.Items[i]))
		}
		slices.Sort(names)
		return nil, names, nil
	case "update":
		cur, err := c.Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil {
			return nil, nil, readFailed(err)
		}
		change(cur.Object, r, o)
		s.setRV(cur, r, o.RV)
		opts := metav1.UpdateOptions{DryRun: dry, FieldManager: o.Manager}
		return timed(func() (*unstructured.Unstructured, error) {
			if o.Sub == "status" {
				return c.UpdateStatus(ctx, cur, opts)
			}
			return c.Update(ctx, cur, opts)
		})
	case "put":
		obj := &unstructured.Unstructured{Object: r.object(o.Name)}
		change(obj.Object, r, o)
		if o.RV == "stale" {
			obj.SetResourceVersion(s.staleRV(key(r, o.Name)))
		}
		return timed(func() (*unstructured.Unstructured, error) {
			return c.Update(ctx, obj, metav1.UpdateOptions{DryRun: dry, FieldManager: o.Manager})
		})
	case "patch":
		body := patchBody(r, o)
		return timed(func() (*unstructured.Unstructured, error) {
			return c.Patch(ctx, o.Name, o.Patch, body, metav1.PatchOptions{DryRun: dry, FieldManager: o.Manager}, subs(o.Sub)...)
		})
	case "apply":
		body := applyBody(r, o)
		opts := metav1.PatchOptions{DryRun: dry, FieldManager: o.Manager}
		if o.Force {
			opts.Force = ptrTo(true)
		}
		return timed(func() (*unstructured.Unstructured, error) {
			return c.Patch(ctx, o.Name, types.ApplyPatchType, body, opts, subs(o.Sub)...)
		})
	case "delete":
		opts := s.deleteOptions(r, o)
		return timed(func() (*unstructured.Unstructured, error) { return nil, c.Delete(ctx, o.Name, opts) })
	case "deletecollection":
		opts := s.deleteOptions(r, o)
		return timed(func() (*unstructured.Unstructured, error) {
			return nil, c.DeleteCollection(ctx, opts, metav1.ListOptions{LabelSelector: o.Labels, FieldSelector: o.Fields})
		})
	case "getscale":
		return timed(func() (*unstructured.Unstructured, error) { return c.Get(ctx, o.Name, metav1.GetOptions{}, "scale") })
	case "updatescale":
		cur, err := c.Get(ctx, o.Name, metav1.GetOptions{}, "scale")
		if err != nil {
			return nil, nil, readFailed(err)
		}
		_ = unstructured.SetNestedField(cur.Object, int64(o.Value), "spec", "replicas")
		switch o.RV {
		case "none":
			cur.SetResourceVersion("")
		case "stale":
			cur.SetResourceVersion(s.staleRV(key(r, o.Name)))
		}
		return timed(func() (*unstructured.Unstructured, error) {
			return c.Update(ctx, cur, metav1.UpdateOptions{DryRun: dry, FieldManager: o.Manager}, "scale")
		})
	case "patchscale":
		body := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, o.Value)
		return timed(func() (*unstructured.Unstructured, error) {
			return c.Patch(ctx, o.Name, types.MergePatchType, body, metav1.PatchOptions{DryRun: dry, FieldManager: o.Manager}, "scale")
		})
	case "evict":
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: s.ns}}
		if o.DryRun {
			ev.DeleteOptions = &metav1.DeleteOptions{DryRun: dry}
		}
		return timed(func() (*unstructured.Unstructured, error) {
			return nil, s.kube.CoreV1().Pods(s.ns).EvictV1(ctx, ev)
		})
	}
	return nil, nil, fmt.Errorf("fuzz: unknown verb %q", o.Verb)
}

func subs(sub string) []string {
	if sub == "" {
		return nil
	}
	return []string{sub}
}

func ptrTo[T any](v T) *T { return &v }

// readError is a failed read before a request, which was not sent.
type readError struct{ err error }

func (e *readError) Error() string { return "not sent: the read before it failed: " + e.err.Error() }

func (e *readError) Unwrap() error { return e.err }

func readFailed(err error) error { return &readError{err} }

// staleRV is the resourceVersion the object had before its last change,
// "1" when it has had one only.
func (s *side) staleRV(k string) string {
	rvs := s.rvs[k]
	if len(rvs) < 2 {
		return "1"
	}
	return rvs[len(rvs)-2]
}

func (s *side) setRV(u *unstructured.Unstructured, r resource, mode string) {
	switch mode {
	case "none":
		u.SetResourceVersion("")
	case "stale":
		u.SetResourceVersion(s.staleRV(key(r, u.GetName())))
	}
}

func (s *side) deleteOptions(r resource, o op) metav1.DeleteOptions {
	opts := metav1.DeleteOptions{}
	if o.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if o.Policy != "" {
		opts.PropagationPolicy = ptrTo(metav1.DeletionPropagation(o.Policy))
	}
	if o.Grace >= 0 {
		opts.GracePeriodSeconds = ptrTo(o.Grace)
	}
	k := key(r, o.Name)
	switch o.Pre {
	case "uid":
		opts.Preconditions = &metav1.Preconditions{UID: ptrTo(types.UID(badUID))}
	case "rv":
		if rvs := s.rvs[k]; len(rvs) > 0 {
			opts.Preconditions = &metav1.Preconditions{ResourceVersion: ptrTo(rvs[len(rvs)-1])}
		} else {
			opts.Preconditions = &metav1.Preconditions{ResourceVersion: ptrTo("1")}
		}
	case "stale":
		opts.Preconditions = &metav1.Preconditions{ResourceVersion: ptrTo(s.staleRV(k))}
	}
	return opts
}

// change edits an object read from the side as o asks.
func change(u map[string]any, r resource, o op) {
	v := o.Value
	switch o.Change {
	case "spec":
		if r.spec != nil {
			_ = unstructured.SetNestedField(u, runtime.DeepCopyJSONValue(r.spec.value(v)), r.spec.path...)
		}
	case "status":
		_ = unstructured.SetNestedField(u, runtime.DeepCopyJSONValue(r.status.value(v)), r.status.path...)
	case "template":
		_ = unstructured.SetNestedField(u, fmt.Sprint(v), append(slices.Clone(r.template), "fuzz")...)
	case "label":
		_ = unstructured.SetNestedField(u, "v", "metadata", "labels", labelKey(v))
	case "unlabel":
		unstructured.RemoveNestedField(u, "metadata", "labels", labelKey(v))
	case "annotate":
		_ = unstructured.SetNestedField(u, fmt.Sprint(v), "metadata", "annotations", "fuzz")
	case "finalize":
		fs, _, _ := unstructured.NestedStringSlice(u, "metadata", "finalizers")
		f := finalizerPrefix + fmt.Sprint(v%2)
		if !slices.Contains(fs, f) {
			fs = append(fs, f)
		}
		_ = unstructured.SetNestedStringSlice(u, fs, "metadata", "finalizers")
	case "unfinalize":
		unstructured.RemoveNestedField(u, "metadata", "finalizers")
	}
}

func labelKey(v int) string { return fmt.Sprintf("l%d", v%3) }

// patchBody is the body of a patch of o's type that makes o's change.
func patchBody(r resource, o op) []byte {
	v := o.Value
	if o.Patch == types.JSONPatchType {
		var ops []map[string]any
		add := func(op string, path []string, value any) {
			p := map[string]any{"op": op, "path": "/" + strings.Join(escape(path), "/")}
			if op != "remove" {
				p["value"] = value
			}
			ops = append(ops, p)
		}
		switch o.Change {
		case "spec":
			if r.spec != nil {
				add("add", r.spec.path, r.spec.value(v))
			}
		case "status":
			add("add", r.status.path, r.status.value(v))
		case "template":
			add("add", append(slices.Clone(r.template), "fuzz"), fmt.Sprint(v))
		case "label":
			add("add", []string{"metadata", "labels", labelKey(v)}, "v")
		case "unlabel":
			add("remove", []string{"metadata", "labels", labelKey(v)}, nil)
		case "annotate":
			add("add", []string{"metadata", "annotations"}, map[string]any{"fuzz": fmt.Sprint(v)})
		case "finalize":
			add("add", []string{"metadata", "finalizers", "-"}, finalizerPrefix+fmt.Sprint(v%2))
		case "unfinalize":
			add("remove", []string{"metadata", "finalizers"}, nil)
		}
		if ops == nil {
			ops = []map[string]any{}
		}
		return mustJSON(ops)
	}
	body := map[string]any{}
	switch o.Change {
	case "unlabel":
		body = map[string]any{"metadata": map[string]any{"labels": map[string]any{labelKey(v): nil}}}
	case "finalize":
		body = map[string]any{"metadata": map[string]any{"finalizers": []any{finalizerPrefix + fmt.Sprint(v%2)}}}
	case "unfinalize":
		body = map[string]any{"metadata": map[string]any{"finalizers": nil}}
	default:
		change(body, r, o)
	}
	return mustJSON(body)
}

// applyBody is an apply configuration of the object with o's change: the
// whole object (no status, no nulls) for the main resource, the status
// alone for /status.
func applyBody(r resource, o op) []byte {
	u := r.object(o.Name)
	if o.Sub == "status" {
		u = map[string]any{"apiVersion": u["apiVersion"], "kind": u["kind"], "metadata": map[string]any{"name": o.Name}}
	}
	change(u, r, o)
	return mustJSON(u)
}

func escape(path []string) []string {
	out := make([]string, len(path))
	for i, p := range path {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return out
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
