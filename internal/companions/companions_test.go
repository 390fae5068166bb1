package companions

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
)

var configMaps = Resource{
	GVR:        schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
	GVK:        schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
	Namespaced: true,
}

// store is a world of fixed objects whose writes all change it, or none.
type store struct {
	objs    []Object
	changes bool
	did     []string
}

func (s *store) Objects() ([]Object, error) { return s.objs, nil }
func (s *store) ResourceOf(apiVersion, kind string) (Resource, bool) {
	if apiVersion == "v1" && kind == "ConfigMap" {
		return configMaps, true
	}
	return Resource{}, false
}
func (s *store) Do(a clienttesting.Action) (bool, error) {
	s.did = append(s.did, a.GetVerb()+" "+describeAction(a))
	return s.changes, nil
}

func dangling(name string) Object {
	return Object{configMaps, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name),
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "gone", UID: "gone-uid"}}}}}
}

// A world that never settles (here: writes that change it but not what
// the store lists) stops after MaxRounds with the last round's writes.
func TestSettleIsBounded(t *testing.T) {
	s := &store{objs: []Object{dangling("a")}, changes: true}
	e := &Engine{Store: s, GarbageCollector: true, MaxRounds: 3}
	out, err := e.Settle()
	if err == nil || !strings.Contains(err.Error(), "did not settle within 3 rounds") || !strings.Contains(err.Error(), "deleted ConfigMap default/a") {
		t.Errorf("want the bound's error naming the last writes, got %v", err)
	}
	if out.Rounds != 3 || len(s.did) != 3 {
		t.Errorf("rounds %d, writes %v; want 3 of each", out.Rounds, s.did)
	}
}

// Findings are reported once per engine; the object with an unresolvable
// reference is left alone.
func TestFindingsOnce(t *testing.T) {
	obj := dangling("w")
	obj.Obj.(*corev1.ConfigMap).OwnerReferences[0].APIVersion = "example.com/v1"
	s := &store{objs: []Object{obj}}
	e := &Engine{Store: s, GarbageCollector: true}
	first, err := e.Settle()
	if err != nil {
		t.Fatal(err)
	}
	second, _ := e.Settle()
	if len(first.Findings) != 1 || !first.Findings[0].Bad || len(second.Findings) != 0 {
		t.Errorf("findings: first %v, second %v; want one bad finding, then none", first.Findings, second.Findings)
	}
	if len(s.did) != 0 {
		t.Errorf("the collector wrote %v; it must keep what it cannot resolve", s.did)
	}
}

func TestLifecycle(t *testing.T) {
	namespaces := map[string]*corev1.Namespace{
		"live":  {Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		"dying": {Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
	}
	admit := Lifecycle(func(name string) (*corev1.Namespace, bool) { ns, ok := namespaces[name]; return ns, ok })
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "cm-"}}
	for _, tc := range []struct{ ns, want string }{
		{"live", ""},
		{"kube-system", ""},
		{"nowhere", `namespaces "nowhere" not found`},
		{"dying", `configmaps "cm-" is forbidden: unable to create new content in namespace dying because it is being terminated`},
	} {
		err := admit(configMaps.GVR, tc.ns, obj)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("create in %s: got %q, want %q", tc.ns, got, tc.want)
		}
		if tc.ns == "dying" && !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			t.Errorf("the refusal lacks its cause: %#v", err)
		}
	}
}
