package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// A k8s.io/api other than the one the module's k8s.io/kubernetes is built
// for (apiVersion) still compiles with it when the fields it adds are
// all k8s.io/kubernetes misses: its conversions then drop them without a
// word, and the verdicts are another release's. A test binary carries no
// module versions to compare (runtime/debug.ReadBuildInfo lists no
// dependencies in tests: golang/go#33976), so the types are compared:
// each served version of a covered kind has the fingerprint of its fields
// in k8s.io/api apiVersion (fingerprints.go, written by TestFingerprints),
// and an object whose type has another is refused, naming both versions.

// fingerprintOf is the fingerprint of t, a versioned API type: a hash of
// the JSON paths of its fields with their Go types, sorted.
func fingerprintOf(t reflect.Type) string {
	var paths []string
	walkFields(t, "", map[reflect.Type]bool{}, &paths)
	slices.Sort(paths)
	sum := sha256.Sum256([]byte(strings.Join(paths, "\n")))
	return hex.EncodeToString(sum[:12])
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// walkFields appends the paths of t's fields under prefix to paths; a type
// that encodes itself (times, quantities, ints-or-strings) is one leaf.
func walkFields(t reflect.Type, prefix string, seen map[reflect.Type]bool, paths *[]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) || seen[t] {
		*paths = append(*paths, prefix+" "+t.String())
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		seen[t] = true
		defer delete(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case name == "-":
				continue
			case name == "" && f.Anonymous:
				walkFields(f.Type, prefix, seen, paths) // inline
				continue
			case name == "":
				name = f.Name
			}
			walkFields(f.Type, prefix+"."+name, seen, paths)
		}
	case reflect.Slice, reflect.Array:
		walkFields(t.Elem(), prefix+"[]", seen, paths)
	case reflect.Map:
		walkFields(t.Elem(), prefix+"{}", seen, paths)
	default:
		*paths = append(*paths, prefix+" "+t.String())
	}
}

// fingerprintsNow are the fingerprints of the types linked into this
// binary, by kind, computed once per kind.
var fingerprintsNow sync.Map // schema.GroupVersionKind -> string

// skew is the package's skew on gvk with s's fingerprints, or the module's,
// whose findings it keeps: every write of a row asks.
func (s server) skew(gvk schema.GroupVersionKind) *field.Error {
	if s.fingerprints != nil {
		return skew(gvk, s.fingerprints)
	}
	skews.RLock()
	err, ok := skews.of[gvk]
	skews.RUnlock()
	if !ok {
		err = skew(gvk, fingerprints)
		skews.Lock()
		skews.of[gvk] = err
		skews.Unlock()
	}
	if err != nil {
		e := *err // the caller's to keep
		return &e
	}
	return nil
}

// skews are skew's findings with the module's fingerprints, by kind.
var skews = struct {
	sync.RWMutex
	of map[schema.GroupVersionKind]*field.Error
}{of: map[schema.GroupVersionKind]*field.Error{}}

// skew is the finding on an object of gvk, a served version of a covered
// kind, when its Go type is not k8s.io/api apiVersion's (want is the
// fingerprints of that release); nil when it is, or when gvk has none.
func skew(gvk schema.GroupVersionKind, want map[string]string) *field.Error {
	expected, ok := want[gvk.String()]
	if !ok {
		return nil
	}
	got, ok := fingerprintsNow.Load(gvk)
	if !ok {
		obj, err := legacyscheme.Scheme.New(gvk)
		if err != nil {
			return nil // unserved reports it
		}
		got, _ = fingerprintsNow.LoadOrStore(gvk, fingerprintOf(reflect.TypeOf(obj)))
	}
	if got == expected {
		return nil
	}
	return field.Invalid(field.NewPath("apiVersion"), gvk.GroupVersion().String(), fmt.Sprintf(
		"kube.Server(): the Go type of %s %s is not k8s.io/api %s's, which k8s.io/kubernetes %s (the kube module's) is built for: "+
			"its fields differ, and kube-apiserver's conversions would drop or misjudge them; require k8s.io/api %s "+
			"(go run github.com/ctrltest/ctrltest/kube/cmd/replaces prints the replace directives)",
		gvk.GroupVersion(), gvk.Kind, apiVersion, kubernetesVersion, apiVersion))
}
