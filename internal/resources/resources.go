// Package resources maps Go types of Kubernetes objects to their kinds and
// resources, exactly as a generated clientset serves them.
//
// The table is read off the clientset's interface by reflection: every typed
// client getter (`Deployments(namespace string) DeploymentInterface`,
// `Nodes() NodeInterface`) names the resource's plural and its scope, and the
// typed client's Get method names the Go type. The scheme then gives the
// kind. Nothing is guessed from the kind's spelling, so a kind Gateway maps to
// "gateways" (client-go's UnsafeGuessKindToResource would say "gatewaies").
package resources

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubescheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrltest/ctrltest/internal/kubeminor"
)

// Info describes one type a clientset serves.
type Info struct {
	// Type is the object's Go type, a pointer to a struct (*appsv1.Deployment).
	Type reflect.Type
	GVK  schema.GroupVersionKind
	GVR  schema.GroupVersionResource
	// Namespaced is false for cluster-scoped resources.
	Namespaced bool
	// Status is true when the resource has a status subresource: its typed
	// client has an UpdateStatus method.
	Status bool
	// Verbs are the API verbs its typed client has methods for, sorted
	// ("create", "delete", "deletecollection", "get", "list", "patch",
	// "update", "watch"): client-gen leaves out the verbs the resource
	// does not serve.
	Verbs []string
}

// Table is an immutable index of the types one or more clientsets serve. It
// is safe for concurrent use.
type Table struct {
	infos  []*Info
	byType map[reflect.Type]*Info
	byGVK  map[schema.GroupVersionKind]*Info
	byGVR  map[schema.GroupVersionResource]*Info
	groups []string
	// apiGroups holds the API groups of groups ("" is the core group).
	apiGroups map[string]bool
}

var (
	contextType    = reflect.TypeFor[context.Context]()
	getOptionsType = reflect.TypeFor[metav1.GetOptions]()
	objectType     = reflect.TypeFor[runtime.Object]()
	stringType     = reflect.TypeFor[string]()
)

// FromClientset reads the table of the clientset interface iface (for
// example kubernetes.Interface), with kinds from scheme.
func FromClientset(iface reflect.Type, scheme *runtime.Scheme) (*Table, error) {
	if iface.Kind() != reflect.Interface {
		return nil, fmt.Errorf("%v is not an interface type", iface)
	}
	t := newTable()
	for i := range iface.NumMethod() {
		group := iface.Method(i).Type
		if group.NumIn() != 0 || group.NumOut() != 1 || group.Out(0).Kind() != reflect.Interface {
			continue
		}
		gv := group.Out(0)
		for j := range gv.NumMethod() {
			m := gv.Method(j)
			namespaced, ok := getterScope(m.Type)
			if !ok {
				continue
			}
			goType, ok := getType(m.Type.Out(0))
			if !ok {
				continue
			}
			obj, ok := reflect.New(goType.Elem()).Interface().(runtime.Object)
			if !ok {
				continue
			}
			gvks, _, err := scheme.ObjectKinds(obj)
			if err != nil || len(gvks) == 0 {
				continue
			}
			gvk := gvks[0]
			t.add(&Info{
				Type:       goType,
				GVK:        gvk,
				GVR:        gvk.GroupVersion().WithResource(strings.ToLower(m.Name)),
				Namespaced: namespaced,
				Status:     hasUpdateStatus(m.Type.Out(0)),
				Verbs:      verbs(m.Type.Out(0)),
			})
		}
	}
	if len(t.infos) == 0 {
		return nil, fmt.Errorf("%v serves no type its scheme knows", iface)
	}
	t.finish()
	return t, nil
}

// getterScope reports whether m looks like a typed client getter and whether
// it takes a namespace.
func getterScope(m reflect.Type) (namespaced, ok bool) {
	if m.NumOut() != 1 || m.Out(0).Kind() != reflect.Interface {
		return false, false
	}
	switch {
	case m.NumIn() == 0:
		return false, true
	case m.NumIn() == 1 && m.In(0) == stringType:
		return true, true
	}
	return false, false
}

// getType returns the object type a typed client's Get method returns.
func getType(client reflect.Type) (reflect.Type, bool) {
	get, ok := client.MethodByName("Get")
	if !ok {
		return nil, false
	}
	ft := get.Type
	if ft.NumIn() != 3 || ft.In(0) != contextType || ft.In(1) != stringType || ft.In(2) != getOptionsType || ft.NumOut() != 2 {
		return nil, false
	}
	out := ft.Out(0)
	if out.Kind() != reflect.Pointer || out.Elem().Kind() != reflect.Struct || !out.Implements(objectType) {
		return nil, false
	}
	return out, true
}

// verbs returns the verbs a typed client has methods for, sorted. Each
// method is looked up by a constant name: a lookup by a name the linker
// cannot see makes it keep every exported method of every type in the
// binary (see hack/binary-size.sh).
func verbs(client reflect.Type) []string {
	var out []string
	add := func(verb string, ok bool) {
		if ok {
			out = append(out, verb)
		}
	}
	_, ok := client.MethodByName("Create")
	add("create", ok)
	_, ok = client.MethodByName("Delete")
	add("delete", ok)
	_, ok = client.MethodByName("DeleteCollection")
	add("deletecollection", ok)
	_, ok = client.MethodByName("Get")
	add("get", ok)
	_, ok = client.MethodByName("List")
	add("list", ok)
	_, ok = client.MethodByName("Patch")
	add("patch", ok)
	_, ok = client.MethodByName("Update")
	add("update", ok)
	_, ok = client.MethodByName("Watch")
	add("watch", ok)
	return out
}

// hasUpdateStatus reports whether a typed client has UpdateStatus, which
// client-gen generates exactly for resources with a status subresource.
func hasUpdateStatus(client reflect.Type) bool {
	_, ok := client.MethodByName("UpdateStatus")
	return ok
}

func newTable() *Table {
	return &Table{
		byType: map[reflect.Type]*Info{},
		byGVK:  map[schema.GroupVersionKind]*Info{},
		byGVR:  map[schema.GroupVersionResource]*Info{},
	}
}

// add keeps the first Info seen for a type, kind or resource.
func (t *Table) add(in *Info) {
	if _, dup := t.byGVK[in.GVK]; dup {
		return
	}
	t.infos = append(t.infos, in)
	if _, dup := t.byType[in.Type]; !dup {
		t.byType[in.Type] = in
	}
	t.byGVK[in.GVK] = in
	if _, dup := t.byGVR[in.GVR]; !dup {
		t.byGVR[in.GVR] = in
	}
}

func (t *Table) finish() {
	seen := map[string]bool{}
	t.apiGroups = map[string]bool{}
	for _, in := range t.infos {
		t.apiGroups[in.GVK.Group] = true
		g := in.GVK.GroupVersion().String()
		if !seen[g] {
			seen[g] = true
			t.groups = append(t.groups, g)
		}
	}
	sort.Strings(t.groups)
	sort.Slice(t.infos, func(i, j int) bool { return t.infos[i].GVR.String() < t.infos[j].GVR.String() })
}

// ForObject returns the Info of obj's Go type or, for objects such as
// *unstructured.Unstructured that carry their kind, of that kind (a table
// of custom resources held as unstructured objects has one Go type for
// every kind).
func (t *Table) ForObject(obj runtime.Object) (*Info, bool) {
	if _, ok := obj.(runtime.Unstructured); !ok {
		if in, ok := t.byType[reflect.TypeOf(obj)]; ok {
			return in, true
		}
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() {
		return nil, false
	}
	in, ok := t.byGVK[gvk]
	return in, ok
}

// ForType returns the Info of a Go type (a pointer to a struct), as
// ForObject does for a typed object.
func (t *Table) ForType(typ reflect.Type) (*Info, bool) {
	in, ok := t.byType[typ]
	return in, ok
}

// ForGVK returns the Info of a kind.
func (t *Table) ForGVK(gvk schema.GroupVersionKind) (*Info, bool) {
	in, ok := t.byGVK[gvk]
	return in, ok
}

// ForGVR returns the Info of a resource.
func (t *Table) ForGVR(gvr schema.GroupVersionResource) (*Info, bool) {
	in, ok := t.byGVR[gvr]
	return in, ok
}

// Infos returns every type of the table, sorted by resource.
func (t *Table) Infos() []*Info { return t.infos }

// GroupVersions returns the sorted group/versions the table serves.
func (t *Table) GroupVersions() []string { return t.groups }

// ServesGroup reports whether the table serves a version of the API group
// ("" is the core group).
func (t *Table) ServesGroup(group string) bool { return t.apiGroups[group] }

// IsBuiltIn reports whether kube-apiserver serves the API group itself
// (Kube's table: the groups of client-go's kubernetes.Interface), not
// through a CustomResourceDefinition. It reads no scheme: a controller
// that registers its own types in client-go's scheme.Scheme (as
// sample-controller does, for its events) leaves the answer as it is.
func IsBuiltIn(group string) bool { return Kube().ServesGroup(group) }

// KubeRow is one row of the generated table of client-go's
// kubernetes.Interface (zz_generated.kube.go): an Info without its Type,
// and the Kubernetes minors whose clientsets serve the resource so
// (Minors, ascending: 37 is k8s.io/client-go v0.37). A resource whose
// verbs or subresources changed between minors has a row per variant.
type KubeRow struct {
	Minors []int
	Info   Info
}

// KubeRows returns the generated rows (hack/kube-resources reads them to
// merge in one minor's).
func KubeRows() []KubeRow { return kubeRows() }

// Kube returns the table of client-go's kubernetes.Interface on the
// Kubernetes minor this binary is built with, built once from the rows
// hack/kube-resources generated off each supported minor's clientset
// (make codegen). The rows name no Go type, so that the table compiles on
// every minor: each kind's type is client-go's scheme's. A test binary
// that registers no clientset of its own thus never reaches FromClientset:
// its reflect.Type.Method calls make the linker keep every exported method
// of every type converted to an interface (see hack/binary-size.sh).
// TestKubeTableIsGenerated fails when the generated table is not
// FromClientset's on the minor it runs on (make test-minors runs it on
// each).
var Kube = sync.OnceValue(func() *Table {
	_, minor := kubeminor.Running()
	t, _ := kubeTable(kubeRows(), minor, kubescheme.Scheme.AllKnownTypes())
	return t
})

// kubeTable returns the table of rows for minor, each with its kind's Go
// type from known (a scheme's AllKnownTypes), and the minor it chose: minor
// when rows have it, else (a client-go whose version is unknown or not
// supported) the newest of the rows' minors whose every kind known has.
// Rows whose kind known lacks are left out.
func kubeTable(rows []KubeRow, minor int, known map[schema.GroupVersionKind]reflect.Type) (*Table, int) {
	minor = pickMinor(rows, minor, known)
	t := newTable()
	for _, r := range rows {
		if !slices.Contains(r.Minors, minor) {
			continue
		}
		typ, ok := known[r.Info.GVK]
		if !ok {
			continue
		}
		in := r.Info
		in.Type = reflect.PointerTo(typ)
		t.add(&in)
	}
	t.finish()
	return t, minor
}

// pickMinor returns minor when a row has it, else the newest minor of the
// rows whose every kind known has (the oldest when none has all).
func pickMinor(rows []KubeRow, minor int, known map[schema.GroupVersionKind]reflect.Type) int {
	complete := map[int]bool{}
	for _, r := range rows {
		for _, m := range r.Minors {
			if m == minor {
				return minor
			}
			if _, seen := complete[m]; !seen {
				complete[m] = true
			}
			if _, ok := known[r.Info.GVK]; !ok {
				complete[m] = false
			}
		}
	}
	minors := slices.Sorted(maps.Keys(complete))
	for i := len(minors) - 1; i >= 0; i-- {
		if complete[minors[i]] {
			return minors[i]
		}
	}
	if len(minors) == 0 {
		return minor
	}
	return minors[0]
}
