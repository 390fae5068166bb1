package actions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/ctrltest/ctrltest/internal/options"
)

// An Option changes how [Diff] matches actions. Options are made by the
// functions of this package; pass go-cmp options through [CmpOptions].
// KeepConditionTimes is a golden.Option too.
type Option interface{ options.Actions }

type optionFunc func(*config)

func (optionFunc) ActionsOption() {}

// Apply sets f's setting when s is this package's.
func (f optionFunc) Apply(s *options.Set) {
	if c, ok := s.Own.(*config); ok {
		f(c)
	}
}

// Options is a list of options that is itself an option.
type Options []Option

// ActionsOption marks o as an option of this package.
func (Options) ActionsOption() {}

// Apply applies each option of o.
func (o Options) Apply(s *options.Set) {
	for _, opt := range o {
		if opt != nil {
			opt.Apply(s)
		}
	}
}

type config struct {
	unordered   bool
	subset      bool
	cmpOpts     []cmp.Option
	normalizers []Normalizer
	// custom: the normalizers are not exactly the default one.
	custom  bool
	resolve Resolver
	// keepConditionTimes compares condition timestamps by value.
	keepConditionTimes bool
}

// Normalizer clears or rewrites what should not count in an object before
// comparison. It is given a deep copy and may change it in place.
type Normalizer func(obj runtime.Object)

// Resolver finds the resource of an object's type, for expected actions
// built from objects that client-go's scheme does not know (custom
// resources). The fixture's resolver knows every clientset it registered.
type Resolver func(obj runtime.Object) (schema.GroupVersionResource, bool)

// Unordered matches actions regardless of order.
func Unordered() Option { return optionFunc(func(c *config) { c.unordered = true }) }

// IsUnordered reports whether opts match actions regardless of order
// (Unordered), for another comparison of the same actions to follow them
// (the parity module's).
func IsUnordered(opts ...Option) bool {
	var c config
	options.Apply(&c, opts)
	return c.unordered
}

// Subset compares objects partially: only the fields set to a non-zero
// value in the expected object count (a field subset); lists of equal length
// are compared element by element. Objects are compared as unstructured
// maps then, so go-cmp options that name Go types do not apply.
func Subset() Option { return optionFunc(func(c *config) { c.subset = true }) }

// CmpOptions passes go-cmp options to the comparison of objects, for
// example cmpopts.IgnoreFields(appsv1.DeploymentSpec{}, "Template").
func CmpOptions(opts ...cmp.Option) Option {
	return optionFunc(func(c *config) { c.cmpOpts = append(c.cmpOpts, opts...) })
}

// Normalize adds a normalizer, applied to both sides after the default ones.
func Normalize(n Normalizer) Option {
	return optionFunc(func(c *config) { c.normalizers, c.custom = append(c.normalizers, n), true })
}

// KeepVolatileFields turns off the default normalization (see
// [NormalizeVolatile]); normalizers added with [Normalize] still run.
func KeepVolatileFields() Option {
	return optionFunc(func(c *config) { c.normalizers, c.custom = nil, true })
}

// WithResolver sets how the resources of expected actions built from
// objects of types client-go does not know are found.
func WithResolver(r Resolver) Option { return optionFunc(func(c *config) { c.resolve = r }) }

// NormalizeVolatile is the default normalizer: it clears the metadata that
// the server (or a field-managed fake) fills in and that varies between runs
// (managedFields, resourceVersion, uid, creationTimestamp, generation,
// selfLink) and the type meta, which the resource already states.
func NormalizeVolatile(obj runtime.Object) {
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	m.SetManagedFields(nil)
	m.SetResourceVersion("")
	m.SetUID("")
	m.SetCreationTimestamp(metav1.Time{})
	m.SetGeneration(0)
	m.SetSelfLink("")
}

func newConfig(opts []Option) *config {
	c := &config{normalizers: []Normalizer{NormalizeVolatile}}
	c.keepConditionTimes = options.Apply(c, opts).KeepConditionTimes
	return c
}

// Equal reports whether got matches want. It is Diff(want, got, opts...) == "".
func Equal(want, got []Action, opts ...Option) bool { return Diff(want, got, opts...) == "" }

// Diff compares expected actions with recorded ones and returns "" exactly
// when they match. Otherwise it lists both sides one action a line, then
// what is missing and what is unexpected by index, then a go-cmp diff
// (-want +got) for each pair of corresponding actions whose content differs.
//
// Two actions correspond when verb, resource, subresource, namespace and
// name are equal. They match when, in addition, their objects are equal
// after normalization, their patch types are equal and their patch bodies
// are equal as JSON documents, and the expected field manager (if any) is
// the recorded one. By default the order counts across verbs. An
// unstructured object (*unstructured.Unstructured) compared with a typed
// one is first converted to the typed object's type, as the API server
// decodes a request: an expectation written as a manifest matches the
// typed object a client recorded, and the other way round.
func Diff(want, got []Action, opts ...Option) string {
	c := newConfig(opts)
	want = c.resolveAll(want)
	var problems []string
	for i, w := range want {
		if w.err != nil {
			problems = append(problems, fmt.Sprintf("want[%d]: %v", i, w.err))
		}
	}
	pairs, missing, unexpected := align(want, got, c)
	var details []string
	for _, p := range pairs {
		if d := c.content(want[p.w], got[p.g]); d != "" {
			details = append(details, fmt.Sprintf("want[%d] and got[%d] %s differ:\n%s", p.w, p.g, got[p.g], indent(d)))
		}
	}
	if len(problems) == 0 && len(missing) == 0 && len(unexpected) == 0 && len(details) == 0 {
		return ""
	}
	var b strings.Builder
	writeList(&b, "want", want)
	writeList(&b, "got", got)
	for _, p := range problems {
		fmt.Fprintf(&b, "%s\n", p)
	}
	if len(missing) > 0 {
		b.WriteString("missing (wanted, not made):\n")
		for _, i := range missing {
			fmt.Fprintf(&b, "  want[%d] %s\n", i, want[i])
		}
	}
	if len(unexpected) > 0 {
		b.WriteString("unexpected (made, not wanted):\n")
		for _, i := range unexpected {
			fmt.Fprintf(&b, "  got[%d] %s\n", i, got[i])
		}
	}
	for _, d := range details {
		b.WriteString(d)
	}
	return b.String()
}

// Assert reports through t.Errorf when got does not match want.
func Assert(t testing.TB, want, got []Action, opts ...Option) bool {
	t.Helper()
	if d := Diff(want, got, opts...); d != "" {
		t.Errorf("actions mismatch (-want +got):\n%s", d)
		return false
	}
	return true
}

func writeList(b *strings.Builder, label string, as []Action) {
	fmt.Fprintf(b, "%s: %d action(s)\n", label, len(as))
	for i, a := range as {
		fmt.Fprintf(b, "  [%d] %s\n", i, a)
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func (c *config) resolveAll(want []Action) []Action {
	out := make([]Action, len(want))
	for i, w := range want {
		if w.err == nil && w.Resource.Empty() && w.source != nil {
			gvr, ok := schema.GroupVersionResource{}, false
			if c.resolve != nil {
				gvr, ok = c.resolve(w.source)
			}
			if ok {
				w.Resource = gvr
			} else {
				w.err = fmt.Errorf("cannot tell the resource of %s: it is not a client-go type; compare through the fixture (which knows its registered clientsets) or pass actions.WithResolver", describe(w.source))
			}
		}
		out[i] = w
	}
	return out
}

func describe(obj runtime.Object) string {
	if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		return fmt.Sprintf("%T (%s)", obj, gvk)
	}
	return fmt.Sprintf("%T", obj)
}

type pair struct{ w, g int }

type identity struct {
	verb        string
	gvr         schema.GroupVersionResource
	sub, ns, nm string
}

func idOf(a Action) identity {
	return identity{a.Verb, a.Resource, a.Subresource, a.Namespace, a.Name}
}

// align pairs corresponding actions: in order, a longest common subsequence
// of identities; unordered, content-equal pairs first, then any
// corresponding pair.
func align(want, got []Action, c *config) (pairs []pair, missing, unexpected []int) {
	usedW := make([]bool, len(want))
	usedG := make([]bool, len(got))
	if c.unordered {
		for pass := 0; pass < 2; pass++ {
			for i, w := range want {
				if usedW[i] || w.err != nil {
					continue
				}
				for j, g := range got {
					if usedG[j] || idOf(w) != idOf(g) {
						continue
					}
					if pass == 0 && c.content(w, g) != "" {
						continue
					}
					usedW[i], usedG[j] = true, true
					pairs = append(pairs, pair{i, j})
					break
				}
			}
		}
	} else {
		n, m := len(want), len(got)
		lcs := make([][]int, n+1)
		for i := range lcs {
			lcs[i] = make([]int, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				switch {
				case want[i].err == nil && idOf(want[i]) == idOf(got[j]):
					lcs[i][j] = lcs[i+1][j+1] + 1
				case lcs[i+1][j] >= lcs[i][j+1]:
					lcs[i][j] = lcs[i+1][j]
				default:
					lcs[i][j] = lcs[i][j+1]
				}
			}
		}
		for i, j := 0, 0; i < n && j < m; {
			switch {
			case want[i].err == nil && idOf(want[i]) == idOf(got[j]):
				pairs = append(pairs, pair{i, j})
				usedW[i], usedG[j] = true, true
				i++
				j++
			case lcs[i+1][j] >= lcs[i][j+1]:
				i++
			default:
				j++
			}
		}
	}
	for i, u := range usedW {
		if !u && want[i].err == nil {
			missing = append(missing, i)
		}
	}
	for j, u := range usedG {
		if !u {
			unexpected = append(unexpected, j)
		}
	}
	return pairs, missing, unexpected
}

// content compares corresponding actions and returns "" when they match.
func (c *config) content(w, g Action) string {
	var b strings.Builder
	if w.FieldManager != "" && w.FieldManager != g.FieldManager {
		fmt.Fprintf(&b, "field manager: want %q, got %q\n", w.FieldManager, g.FieldManager)
	}
	if w.where != nil {
		if err := w.where(g); err != nil {
			fmt.Fprintf(&b, "%v\n", err)
		}
		return b.String()
	}
	if w.PatchType != g.PatchType {
		fmt.Fprintf(&b, "patch type: want %q, got %q\n", w.PatchType, g.PatchType)
	}
	if len(w.Patch) > 0 || len(g.Patch) > 0 {
		if d := c.diffPatch(w.Patch, g.Patch); d != "" {
			fmt.Fprintf(&b, "patch (-want +got):\n%s", d)
		}
	}
	if w.Object != nil || g.Object != nil {
		if d := c.diffObjects(w.Object, g.Object); d != "" {
			fmt.Fprintf(&b, "object (-want +got):\n%s", d)
		}
	}
	return b.String()
}

// shallowVolatile returns a shallow copy of a typed object (a pointer to a
// struct) with NormalizeVolatile applied, or nil for other objects. The
// copy shares everything below its top-level fields with obj: it is only
// compared, never changed further. An unstructured object has nothing but
// a map below its top level: its shallow copy would change obj's map, so
// it gets nil too.
func shallowVolatile(obj runtime.Object) runtime.Object {
	if _, ok := obj.(runtime.Unstructured); ok {
		return nil
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	t := v.Elem().Type()
	var cp reflect.Value
	if kept, ok := scratchOf(t).Get().(runtime.Object); ok {
		cp = reflect.ValueOf(kept)
	} else {
		cp = reflect.New(t)
	}
	cp.Elem().Set(v.Elem())
	out, ok := cp.Interface().(runtime.Object)
	if !ok {
		return nil
	}
	NormalizeVolatile(out)
	return out
}

// scratch keeps, by struct type, the copies of shallowVolatile that
// releaseShallow gave back, zeroed, for the next comparison: a compared
// pair of rich objects (Deployments) costs two of them every time.
var scratch sync.Map // reflect.Type → *sync.Pool of runtime.Object (pointers to the type)

func scratchOf(t reflect.Type) *sync.Pool {
	if p, ok := scratch.Load(t); ok {
		return p.(*sync.Pool)
	}
	p, _ := scratch.LoadOrStore(t, &sync.Pool{})
	return p.(*sync.Pool)
}

// releaseShallow gives back copies of shallowVolatile once compared, zeroed
// (they share what lies below their top-level fields with the objects
// they copy, which the pool must not keep).
func releaseShallow(objs ...runtime.Object) {
	for _, o := range objs {
		if o == nil {
			continue
		}
		v := reflect.ValueOf(o)
		v.Elem().SetZero()
		scratchOf(v.Elem().Type()).Put(o)
	}
}

func (c *config) normalized(obj runtime.Object) runtime.Object {
	if obj == nil {
		return nil
	}
	obj = obj.DeepCopyObject()
	for _, n := range c.normalizers {
		n(obj)
	}
	return obj
}

func (c *config) diffObjects(w, g runtime.Object) string {
	// Equal objects stay equal once normalized: skip the copies.
	if !c.subset && w != nil && g != nil && reflect.TypeOf(w) == reflect.TypeOf(g) && reflect.DeepEqual(w, g) {
		return ""
	}
	// With only the default normalizer, which sets top-level metadata,
	// shallow copies suffice to find equal objects.
	if !c.subset && !c.custom && w != nil && g != nil && reflect.TypeOf(w) == reflect.TypeOf(g) {
		sw, sg := shallowVolatile(w), shallowVolatile(g)
		equal := sw != nil && sg != nil && reflect.DeepEqual(sw, sg)
		releaseShallow(sw, sg)
		if equal {
			return ""
		}
	}
	// Most compared objects match: with the default normalizer and no
	// go-cmp options, a walk of the typed objects says so without
	// converting them.
	if c.subset && !c.custom && len(c.cmpOpts) == 0 && w != nil && g != nil && reflect.TypeOf(w) == reflect.TypeOf(g) {
		sw, sg := shallowVolatile(w), shallowVolatile(g)
		equal := sw != nil && sg != nil && c.typedSubsetEqual(sw, sg)
		releaseShallow(sw, sg)
		if equal {
			return ""
		}
	}
	w, g = c.normalized(w), c.normalized(g)
	if w == nil || g == nil {
		return cmp.Diff(fmt.Sprintf("%T", w), fmt.Sprintf("%T", g))
	}
	if !c.subset {
		w, g = typedPair(w, g)
	}
	// Objects equal in whole match as a subset too: skip the conversions.
	if c.subset && reflect.TypeOf(w) == reflect.TypeOf(g) && reflect.DeepEqual(w, g) {
		return ""
	}
	if c.subset || reflect.TypeOf(w) != reflect.TypeOf(g) {
		wm, err1 := runtime.DefaultUnstructuredConverter.ToUnstructured(w)
		gm, err2 := runtime.DefaultUnstructuredConverter.ToUnstructured(g)
		if err1 != nil || err2 != nil {
			return fmt.Sprintf("cannot compare %T with %T: %v %v\n", w, g, err1, err2)
		}
		var wv, gv any = map[string]any(wm), map[string]any(gm)
		if c.subset {
			wv = trimZero(wv)
			gv = prune(wv, gv)
		}
		// Most compared objects match: say so without go-cmp, which
		// costs many times more. With options of the caller's, only
		// deeply equal documents are known to match (no go-cmp option
		// makes them differ).
		if len(c.cmpOpts) == 0 && docsEqual(wv, gv, c.keepConditionTimes, false) ||
			reflect.DeepEqual(wv, gv) {
			return ""
		}
		return cmp.Diff(wv, gv, append([]cmp.Option{cmpopts.EquateEmpty(), c.times()}, c.cmpOpts...)...)
	}
	// Most compared objects are equal: reflect.DeepEqual says so at a
	// fraction of go-cmp's cost. No go-cmp option makes deeply equal values
	// differ, so the shortcut holds with options too.
	if reflect.DeepEqual(w, g) {
		return ""
	}
	return cmp.Diff(w, g, append([]cmp.Option{cmpopts.EquateEmpty(), exportAll, c.times()}, c.cmpOpts...)...)
}

// times is the comparison of condition timestamps (see KeepConditionTimes).
func (c *config) times() cmp.Option {
	if c.keepConditionTimes {
		return cmp.Options{}
	}
	return conditionTimes
}

// typedPair returns w and g with an unstructured one converted to the
// other's type when the other is typed (a pointer to a struct); as they
// are when not, or when the conversion fails (the comparison of their
// JSON forms then shows why).
func typedPair(w, g runtime.Object) (runtime.Object, runtime.Object) {
	convert := func(u *unstructured.Unstructured, like runtime.Object) runtime.Object {
		t := reflect.TypeOf(like)
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return nil
		}
		out, ok := reflect.New(t.Elem()).Interface().(runtime.Object)
		if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out) != nil {
			return nil
		}
		NormalizeVolatile(out)
		return out
	}
	if u, ok := w.(*unstructured.Unstructured); ok {
		if _, typed := g.(*unstructured.Unstructured); !typed {
			if tw := convert(u, g); tw != nil {
				return tw, g
			}
		}
	}
	if u, ok := g.(*unstructured.Unstructured); ok {
		if _, typed := w.(*unstructured.Unstructured); !typed {
			if tg := convert(u, w); tg != nil {
				return w, tg
			}
		}
	}
	return w, g
}

// exportAll lets go-cmp compare unexported fields of API types that have no
// Equal method, instead of panicking.
var exportAll = cmp.Exporter(func(reflect.Type) bool { return true })

// trimZero drops what an expected object leaves unset: nulls, zero
// scalars, and maps and lists left empty once trimmed. (A typed object set
// to a zero value cannot be told from an unset one; compare such fields
// without Subset, or with Where.)
func trimZero(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if t := trimZero(x); t != nil {
				out[k] = t
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(v) == 0 {
			return nil
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = trimZero(x)
		}
		return out
	case string:
		if v == "" {
			return nil
		}
	case bool:
		if !v {
			return nil
		}
	case int64:
		if v == 0 {
			return nil
		}
	case float64:
		if v == 0 {
			return nil
		}
	}
	return v
}

// prune keeps of got only what want sets, recursively through maps and,
// when lengths agree, lists.
func prune(want, got any) any {
	switch w := want.(type) {
	case nil:
		return nil
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return got
		}
		out := make(map[string]any, len(w))
		for k, wv := range w {
			if gv, ok := g[k]; ok {
				out[k] = prune(wv, gv)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return got
		}
		out := make([]any, len(g))
		for i := range g {
			out[i] = prune(w[i], g[i])
		}
		return out
	}
	return got
}

// diffPatch compares patch bodies as JSON or YAML documents, falling back
// to their text.
func (c *config) diffPatch(w, g []byte) string {
	if bytes.Equal(w, g) {
		return ""
	}
	wd, werr := decodeDoc(w)
	gd, gerr := decodeDoc(g)
	if werr != nil || gerr != nil {
		return cmp.Diff(string(w), string(g))
	}
	if c.subset {
		wd = trimZero(wd)
		gd = prune(wd, gd)
	}
	return cmp.Diff(wd, gd, cmpopts.EquateEmpty(), c.times())
}

func decodeDoc(data []byte) (any, error) {
	var v any
	if len(data) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(data, &v); err == nil {
		return v, nil
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	err = json.Unmarshal(j, &v)
	return v, err
}

// docsEqual reports whether two unstructured documents (what
// ToUnstructured or a JSON decoder makes: maps, lists and scalars) are
// equal as cmp.Diff compares them in diffObjects, with
// cmpopts.EquateEmpty (an empty list or map equals a nil one of its type)
// and, unless keepTimes, conditionTimes (a timestamp under a key
// "conditions" counts only as set or not). inConditions: a key on the way
// to a and b is "conditions".
func docsEqual(a, b any, keepTimes, inConditions bool) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok {
				return false
			}
			if !keepTimes && inConditions && conditionTimeFields[k] {
				if isSetTime(av) != isSetTime(bv) {
					return false
				}
				continue
			}
			if !docsEqual(av, bv, keepTimes, inConditions || k == "conditions") {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !docsEqual(a[i], b[i], keepTimes, inConditions) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case string, bool, int64, float64, int, int32, float32:
		return a == b
	}
	return reflect.DeepEqual(a, b)
}
