package parity

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrltest/ctrltest/actions"
)

// diverge names every difference between the two sides.
// diverge lists how the sides differ; unordered compares their writes
// regardless of order (the row's actions.Unordered).
func diverge(fakes, server Side, unordered bool, filled filledFunc) []Divergence {
	server = withFakesUIDs(fakes, server)
	var out []Divergence
	refused := false
	for i, ans := range server.Answers {
		w := server.Writes[i]
		switch {
		case ans.Code == 422:
			out = append(out, Divergence{Kind: Validation, What: "write " + w.String(), Detail: "the server refused it: " + ans.Message})
		case ans.Code == 409 && w.Verb != actions.VerbCreate:
			out = append(out, Divergence{Kind: ResourceVersion, What: "write " + w.String(), Detail: "the server refused it: " + ans.Message})
		case ans.Code == 404 && w.Subresource == "status":
			out = append(out, Divergence{Kind: StatusSplit, What: "write " + w.String(), Detail: "the server has no status subresource for it: " + ans.Message})
		default:
			continue
		}
		refused = true
	}
	if refused && errText(fakes.Err) == errText(server.Err) {
		out, refused = nil, false // the fakes refused the same writes (the server model)
	}
	if unordered {
		fakes.Writes, server.Writes = byIdentity(fakes.Writes), byIdentity(server.Writes)
	}
	out = append(out, divergeWrites(fakes.Writes, server.Writes, filled)...)
	if errText(fakes.Err) != errText(server.Err) && !refused {
		out = append(out, Divergence{Kind: Error, What: "the sync's error", Detail: fmt.Sprintf("fakes:  %s\nserver: %s", orNone(errText(fakes.Err)), orNone(errText(server.Err)))})
	}
	if d := cmp.Diff(fakes.Events, server.Events); d != "" {
		out = append(out, Divergence{Kind: Events, What: "the recorded events", Detail: "(-fakes +server):\n" + d})
	}
	return append(out, divergeObjects(fakes, server, filled)...)
}

// withFakesUIDs returns the server side with the uid of each object both
// sides hold replaced, wherever it appears, by the fakes' uid of that
// object: a uid does not count, and a server copies it into other fields
// too (a Job's selector and its template's controller-uid labels). The
// seed objects' uids are the seeds' already (the fixture maps them back);
// this maps the uids of objects the sync created.
func withFakesUIDs(fakes, server Side) Side {
	fo := index(fakes.Objects)
	uids := map[string]string{}
	for _, s := range server.Objects {
		f, ok := fo[objectName(s)]
		if !ok {
			continue
		}
		fm, err1 := meta.Accessor(f)
		sm, err2 := meta.Accessor(s)
		if err1 == nil && err2 == nil && fm.GetUID() != "" && sm.GetUID() != "" && fm.GetUID() != sm.GetUID() {
			uids[string(sm.GetUID())] = string(fm.GetUID())
		}
	}
	if len(uids) == 0 {
		return server
	}
	out := server
	out.Objects = make([]k8sruntime.Object, len(server.Objects))
	for i, o := range server.Objects {
		out.Objects[i] = replaceUIDs(o, uids)
	}
	out.Writes = make([]actions.Action, len(server.Writes))
	for i, w := range server.Writes {
		if w.Object != nil {
			w.Object = replaceUIDs(w.Object, uids)
		}
		out.Writes[i] = w
	}
	return out
}

// replaceUIDs returns a copy of o with every string that is a key of uids
// replaced by its value; o itself when it does not convert.
func replaceUIDs(o k8sruntime.Object, uids map[string]string) k8sruntime.Object {
	u, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return o
	}
	if _, ok := o.(k8sruntime.Unstructured); ok {
		u = k8sruntime.DeepCopyJSON(u)
	}
	replaceStrings(u, uids)
	if uo, ok := o.(k8sruntime.Unstructured); ok {
		out := uo.NewEmptyInstance()
		out.SetUnstructuredContent(u)
		return out
	}
	typ := reflect.TypeOf(o)
	if typ.Kind() != reflect.Pointer {
		return o
	}
	out := reflect.New(typ.Elem()).Interface().(k8sruntime.Object)
	if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(u, out); err != nil {
		return o
	}
	return out
}

func replaceStrings(v any, to map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok {
				if r, ok := to[s]; ok {
					v[k] = r
				}
				continue
			}
			replaceStrings(x, to)
		}
	case []any:
		for i, x := range v {
			if s, ok := x.(string); ok {
				if r, ok := to[s]; ok {
					v[i] = r
				}
				continue
			}
			replaceStrings(x, to)
		}
	}
}

// byIdentity returns a copy of ws sorted by what each write names (verb,
// resource, subresource, namespace, name), stably.
func byIdentity(ws []actions.Action) []actions.Action {
	out := slices.Clone(ws)
	slices.SortStableFunc(out, func(a, b actions.Action) int { return strings.Compare(a.String(), b.String()) })
	return out
}

func divergeWrites(fakes, server []actions.Action, filled filledFunc) []Divergence {
	same := len(fakes) == len(server)
	for i := 0; same && i < len(fakes); i++ {
		f, s := fakes[i], server[i]
		same = f.Verb == s.Verb && f.Resource == s.Resource && f.Subresource == s.Subresource && f.Namespace == s.Namespace && f.Name == s.Name
	}
	if !same {
		return []Divergence{{Kind: Writes, What: "the writes", Detail: fmt.Sprintf("fakes:  %s\nserver: %s", listWrites(fakes), listWrites(server))}}
	}
	var out []Divergence
	for i, f := range fakes {
		s := server[i]
		what := fmt.Sprintf("write %d (%s)", i+1, f)
		if !bytes.Equal(f.Patch, s.Patch) || f.PatchType != s.PatchType {
			out = append(out, Divergence{Kind: Writes, What: what, Detail: fmt.Sprintf("fakes:  %s\nserver: %s", f.Patch, s.Patch)})
		}
		if f.Object == nil || s.Object == nil {
			continue
		}
		diffs := diffObjects(f.Object, s.Object)
		var defaulted, other []fieldDiff
		for _, d := range diffs {
			if d.defaulted() && filled.fills(f.Object, f.Resource, d.path) {
				defaulted = append(defaulted, d)
			} else {
				other = append(other, d)
			}
		}
		if len(defaulted) > 0 {
			out = append(out, Divergence{Kind: Defaulting, What: what, Detail: "what the controller sent holds the server's defaults:\n" + describeDiffs(defaulted)})
		}
		if len(other) > 0 {
			out = append(out, Divergence{Kind: Writes, What: what, Detail: describeDiffs(other)})
		}
	}
	return out
}

// divergeObjects compares the objects the sides hold after the sync.
func divergeObjects(fakes, server Side, filled filledFunc) []Divergence {
	fo, so := index(fakes.Objects), index(server.Objects)
	var out []Divergence
	for _, key := range unionKeys(fo, so) {
		f, s := fo[key], so[key]
		switch {
		case s == nil:
			fm, _ := meta.Accessor(f)
			d := Divergence{Kind: Objects, What: key, Detail: "exists on the fakes only"}
			switch {
			case fm.GetGenerateName() != "" && !strings.HasPrefix(fm.GetName(), fm.GetGenerateName()):
				d.Kind, d.Detail = GenerateName, fmt.Sprintf("the fakes named an object created with generateName %q: %q", fm.GetGenerateName(), fm.GetName())
			case hasDeleteCollection(fakes.Writes, fm.GetNamespace()):
				d.Kind, d.Detail = DeleteCollection, "the server's delete-collection deleted it; the fakes' left it"
			}
			out = append(out, d)
		case f == nil:
			sm, _ := meta.Accessor(s)
			d := Divergence{Kind: Objects, What: key, Detail: "exists on the server only"}
			switch {
			case sm.GetDeletionTimestamp() != nil:
				d.Kind, d.Detail = Finalizers, fmt.Sprintf("the server keeps it, being deleted, until its finalizers %v are removed; the fakes deleted it", sm.GetFinalizers())
			case sm.GetGenerateName() != "":
				d.Kind, d.Detail = GenerateName, fmt.Sprintf("the server named it %q (generateName %q); the fakes did not", sm.GetName(), sm.GetGenerateName())
			}
			out = append(out, d)
		default:
			out = append(out, classifyObject(key, fakes.resources[key], f, s, fakes.Writes, filled)...)
		}
	}
	return out
}

// classifyObject names the differences of an object both sides hold.
func classifyObject(key string, gvr schema.GroupVersionResource, f, s k8sruntime.Object, writes []actions.Action, filled filledFunc) []Divergence {
	fm, _ := meta.Accessor(f)
	statusWrite, plainWrite := false, false
	for _, w := range writes {
		if w.Resource == gvr && w.Namespace == fm.GetNamespace() && w.Name == fm.GetName() && w.Verb != actions.VerbCreate {
			if w.Subresource == "status" {
				statusWrite = true
			} else if w.Subresource == "" {
				plainWrite = true
			}
		}
	}
	byKind := map[Kind][]fieldDiff{}
	for _, d := range diffObjects(f, s) {
		underStatus := d.path == "status" || strings.HasPrefix(d.path, "status.")
		underMeta := strings.HasPrefix(d.path, "metadata.")
		switch {
		case d.path == "metadata.deletionTimestamp" && d.inSrv:
			byKind[Finalizers] = append(byKind[Finalizers], d)
		case d.defaulted() && !underMeta && filled.fills(f, gvr, d.path): // the server defaults no metadata
			byKind[Defaulting] = append(byKind[Defaulting], d)
		case underStatus && plainWrite || !underStatus && !underMeta && statusWrite:
			byKind[StatusSplit] = append(byKind[StatusSplit], d)
		default:
			byKind[Objects] = append(byKind[Objects], d)
		}
	}
	var out []Divergence
	for _, k := range kinds {
		if ds := byKind[k]; len(ds) > 0 {
			out = append(out, Divergence{Kind: k, What: key, Detail: describeDiffs(ds)})
		}
	}
	return out
}

func hasDeleteCollection(writes []actions.Action, ns string) bool {
	for _, w := range writes {
		if w.Verb == actions.VerbDeleteCollection && w.Namespace == ns {
			return true
		}
	}
	return false
}

// index keys objects by type, namespace and name; a name made from
// generateName counts as the generateName, as the suffixes differ.
func index(objs []k8sruntime.Object) map[string]k8sruntime.Object {
	out := map[string]k8sruntime.Object{}
	for _, o := range objs {
		out[objectName(o)] = o
	}
	return out
}

func objectName(o k8sruntime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return fmt.Sprintf("%T", o)
	}
	name := m.GetName()
	if g := m.GetGenerateName(); g != "" && strings.HasPrefix(name, g) && len(name) > len(g) {
		name = g + "*"
	}
	typ := reflect.TypeOf(o)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	kind := typ.Name()
	if u, ok := o.(k8sruntime.Unstructured); ok && u.GetObjectKind().GroupVersionKind().Kind != "" {
		// A custom resource with no Go type: its kind names it.
		kind = u.GetObjectKind().GroupVersionKind().Kind
	}
	key := strings.ToLower(kind) + " "
	if m.GetNamespace() != "" {
		key += m.GetNamespace() + "/"
	}
	return key + name
}

// fieldDiff is one field that differs.
type fieldDiff struct {
	path           string
	fakes, server  any
	inFakes, inSrv bool
}

// defaulted reports whether the server set a field the fakes left empty.
func (d fieldDiff) defaulted() bool { return isZero(d.fakes) && !isZero(d.server) }

func describeDiffs(ds []fieldDiff) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: fakes %s, server %s\n", d.path, show(d.fakes, d.inFakes), show(d.server, d.inSrv))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func show(v any, present bool) string {
	if !present {
		return "unset"
	}
	return fmt.Sprintf("%#v", v)
}

// diffObjects lists the fields in which two objects differ, after removing
// what is expected to differ (resourceVersion, uid, timestamps, managed
// fields; a deletion timestamp counts only as present or not).
func diffObjects(f, s k8sruntime.Object) []fieldDiff {
	fu, err1 := normalized(f)
	su, err2 := normalized(s)
	if err1 != nil || err2 != nil {
		if d := cmp.Diff(f, s); d != "" {
			return []fieldDiff{{path: "(object)", fakes: d}}
		}
		return nil
	}
	var out []fieldDiff
	diffValues("", fu, su, true, true, &out)
	return out
}

var someTime = metav1.Unix(0, 0)

func normalized(o k8sruntime.Object) (map[string]any, error) {
	o = o.DeepCopyObject()
	actions.NormalizeVolatile(o)
	if m, err := meta.Accessor(o); err == nil {
		if m.GetDeletionTimestamp() != nil {
			m.SetDeletionTimestamp(&someTime)
		}
		m.SetDeletionGracePeriodSeconds(nil)
		if g := m.GetGenerateName(); g != "" && strings.HasPrefix(m.GetName(), g) {
			m.SetName(g + "*")
		}
	}
	u, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err == nil {
		normalizeNested(u)
	}
	return u, err
}

// someTimeText stands for every time nested in an object.
const someTimeText = "(a time)"

// normalizeNested removes what differs between any two servers wherever it
// is nested: times (a condition's lastTransitionTime, a Job's startTime:
// a field named ...Time or ...Timestamp holding an RFC 3339 time counts
// only as present), and the uid and resourceVersion of object references
// (owner references, an event's involvedObject: any object with a kind
// and a name).
func normalizeNested(v any) {
	switch v := v.(type) {
	case map[string]any:
		_, kind := v["kind"].(string)
		_, name := v["name"].(string)
		if kind && name {
			delete(v, "uid")
			delete(v, "resourceVersion")
		}
		for k, x := range v {
			if s, ok := x.(string); ok && (strings.HasSuffix(k, "Time") || strings.HasSuffix(k, "Timestamp")) {
				if _, err := time.Parse(time.RFC3339, s); err == nil {
					v[k] = someTimeText
				}
				continue
			}
			normalizeNested(x)
		}
	case []any:
		for _, x := range v {
			normalizeNested(x)
		}
	}
}

func diffValues(path string, f, s any, inF, inS bool, out *[]fieldDiff) {
	if isZero(f) && isZero(s) {
		return
	}
	fm, fok := f.(map[string]any)
	sm, sok := s.(map[string]any)
	if fok && sok {
		for _, k := range unionKeys(fm, sm) {
			fv, fin := fm[k]
			sv, sin := sm[k]
			diffValues(join(path, k), fv, sv, fin, sin, out)
		}
		return
	}
	fl, fok := f.([]any)
	sl, sok := s.([]any)
	if fok && sok && len(fl) == len(sl) {
		for i := range fl {
			diffValues(fmt.Sprintf("%s[%d]", path, i), fl[i], sl[i], true, true, out)
		}
		return
	}
	if !reflect.DeepEqual(f, s) {
		*out = append(*out, fieldDiff{path: path, fakes: f, server: s, inFakes: inF && f != nil, inSrv: inS && s != nil})
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// isZero reports whether v is absent or empty: nil, "", 0, false, or a
// map or list of nothing but such values.
func isZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	case map[string]any:
		for _, x := range v {
			if !isZero(x) {
				return false
			}
		}
		return true
	case []any:
		return len(v) == 0
	}
	return false
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
