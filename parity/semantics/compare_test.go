package semantics

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// These tests need no server: they check the comparison itself.

func TestCompareNamesEachDifferingField(t *testing.T) {
	base := Observation{Request: "update spec", Stored: storedChanged, Generation: 2}
	tests := []struct {
		name   string
		server func(*Observation)
		want   []Divergence
	}{{
		name:   "equal",
		server: func(*Observation) {},
	}, {
		name:   "error",
		server: func(o *Observation) { o.Err = "Conflict (409)" },
		want:   []Divergence{{Sequence: "S/seq", Index: 2, Request: "update spec", Field: fieldError, Fakes: "ok", Server: "Conflict (409)"}},
	}, {
		name:   "resourceVersion",
		server: func(o *Observation) { o.Stored = storedSame },
		want:   []Divergence{{Sequence: "S/seq", Index: 2, Request: "update spec", Field: fieldStored, Fakes: storedChanged, Server: storedSame}},
	}, {
		name:   "generation and deleting",
		server: func(o *Observation) { o.Generation, o.Deleting = 3, true },
		want: []Divergence{
			{Sequence: "S/seq", Index: 2, Request: "update spec", Field: fieldGeneration, Fakes: "2", Server: "3"},
			{Sequence: "S/seq", Index: 2, Request: "update spec", Field: fieldDeleting, Fakes: "false", Server: "true"},
		},
	}, {
		name:   "name",
		server: func(o *Observation) { o.Name = "obj-*" },
		want:   []Divergence{{Sequence: "S/seq", Index: 2, Request: "update spec", Field: fieldName, Fakes: "", Server: "obj-*"}},
	}, {
		name:   "another request",
		server: func(o *Observation) { o.Request = "apply" },
		want:   []Divergence{{Sequence: "S/seq", Index: 2, Request: "update spec", Field: "request", Fakes: "update spec", Server: "apply"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first := Observation{Request: "create", Stored: storedCreated, Generation: 1}
			server := base
			tc.server(&server)
			got := compare("S/seq", run{Observations: []Observation{first, base}}, run{Observations: []Observation{first, server}}, nil)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("compare (-want +got):\n%s", d)
			}
		})
	}
}

func configMap(name string, edit func(*corev1.ConfigMap)) runtime.Object {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: "7", UID: "u"}}
	if edit != nil {
		edit(cm)
	}
	return cm
}

func TestCompareObjects(t *testing.T) {
	tests := []struct {
		name          string
		fakes, server []runtime.Object
		touched       []string
		want          []Divergence
	}{{
		name:   "volatile metadata does not count",
		fakes:  []runtime.Object{configMap("a", nil)},
		server: []runtime.Object{configMap("a", func(cm *corev1.ConfigMap) { cm.ResourceVersion, cm.UID, cm.Generation = "9", "v", 3 })},
	}, {
		name:   "a server default of an untouched field does not count",
		fakes:  []runtime.Object{configMap("a", nil)},
		server: []runtime.Object{configMap("a", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"d": "default"} })},
	}, {
		name:    "the same field, touched, counts",
		fakes:   []runtime.Object{configMap("a", nil)},
		server:  []runtime.Object{configMap("a", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"d": "default"} })},
		touched: []string{"data.d"},
		// A map on one side only differs as a whole (parity.DiffFields).
		want: []Divergence{{Sequence: "S/seq", Request: objectsRequest, Field: "ConfigMap a: data", Fakes: "unset", Server: `{"d":"default"}`}},
	}, {
		name:   "metadata counts",
		fakes:  []runtime.Object{configMap("a", nil)},
		server: []runtime.Object{configMap("a", func(cm *corev1.ConfigMap) { cm.Labels = map[string]string{"l": "v"} })},
		want:   []Divergence{{Sequence: "S/seq", Request: objectsRequest, Field: "ConfigMap a: metadata.labels", Fakes: "unset", Server: `{"l":"v"}`}},
	}, {
		name:   "a value the fakes have and the server not counts",
		fakes:  []runtime.Object{configMap("a", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"d": "x", "e": "y"} })},
		server: []runtime.Object{configMap("a", func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"e": "y"} })},
		want:   []Divergence{{Sequence: "S/seq", Request: objectsRequest, Field: "ConfigMap a: data.d", Fakes: `"x"`, Server: "unset"}},
	}, {
		name:   "objects on one side",
		fakes:  []runtime.Object{configMap("a", nil)},
		server: []runtime.Object{configMap("b", nil)},
		want: []Divergence{
			{Sequence: "S/seq", Request: objectsRequest, Field: "ConfigMap a", Fakes: "present", Server: "absent"},
			{Sequence: "S/seq", Request: objectsRequest, Field: "ConfigMap b", Fakes: "absent", Server: "present"},
		},
	}, {
		name:   "names from generateName compare by it",
		fakes:  []runtime.Object{configMap("obj-abcde", func(cm *corev1.ConfigMap) { cm.GenerateName = "obj-" })},
		server: []runtime.Object{configMap("obj-xyz12", func(cm *corev1.ConfigMap) { cm.GenerateName = "obj-" })},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := compare("S/seq", run{Objects: tc.fakes}, run{Objects: tc.server}, tc.touched)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("compare (-want +got):\n%s", d)
			}
		})
	}
}

func TestKnownAcceptsAndCounts(t *testing.T) {
	divs := []Divergence{
		{Sequence: "Deployment/lifecycle", Index: 4, Request: "update /status (and spec)", Field: fieldGeneration},
		{Sequence: "Foo/lifecycle", Index: 4, Request: "update spec", Field: fieldStored},
		{Sequence: "Foo/stale", Index: 2, Request: "update spec", Field: fieldError},
	}
	known := []Known{
		{Sequence: "Deployment/*", Request: "update /status*", Reason: "a"},
		{Sequence: "*/lifecycle", Field: fieldStored, Reason: "b"},
		{Sequence: "Pod/*", Reason: "never"},
	}
	used := accept(divs, known)
	if d := cmp.Diff([]int{1, 1, 0}, used); d != "" {
		t.Errorf("uses per Known entry (-want +got):\n%s", d)
	}
	var reasons []string
	for _, d := range divs {
		reasons = append(reasons, d.Known)
	}
	if d := cmp.Diff([]string{"a", "b", ""}, reasons); d != "" {
		t.Errorf("reasons (-want +got):\n%s", d)
	}
	if u := unknown(divs); len(u) != 1 || u[0].Sequence != "Foo/stale" {
		t.Errorf("unknown = %v, want the Foo/stale divergence", u)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"", "anything", true},
		{"*", "a/b", true},
		{"Deployment/lifecycle", "Deployment/lifecycle", true},
		{"Deployment/lifecycle", "Deployment/lifecycle2", false},
		{"*/lifecycle", "Foo/lifecycle", true},
		{"update /status*", "update /status (and spec)", true},
		{"update*", "merge patch /status", false},
		{"a.b", "axb", false},
	}
	for _, tc := range tests {
		if got := match(tc.pattern, tc.s); got != tc.want {
			t.Errorf("match(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestErrText(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{apierrors.NewConflict(gr, "a", errors.New("stale")), "Conflict (409)"},
		{apierrors.NewNotFound(gr, "a"), "NotFound (404)"},
		{&readError{apierrors.NewNotFound(gr, "a")}, "not sent: read failed: NotFound (404)"},
		{errors.New("boom"), "error: boom"},
	}
	for _, tc := range tests {
		if got := errText(tc.err); got != tc.want {
			t.Errorf("errText(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestTablesShowBothSides(t *testing.T) {
	f := run{Observations: []Observation{{Request: "create", Stored: storedCreated}}}
	s := run{Observations: []Observation{{Request: "create", Stored: storedCreated, Generation: 1}}}
	table := observationTable("ConfigMap/x", f, s)
	for _, want := range []string{"ConfigMap/x:", "ok; created; generation 0", "ok; created; generation 1", "≠"} {
		if !strings.Contains(table, want) {
			t.Errorf("observation table lacks %q:\n%s", want, table)
		}
	}
	divs := compare("ConfigMap/x", f, s, nil)
	divs[0].Known = "fakes: no generation"
	table = divergenceTable(divs)
	for _, want := range []string{"ConfigMap/x", "create", fieldGeneration, "fakes: no generation"} {
		if !strings.Contains(table, want) {
			t.Errorf("divergence table lacks %q:\n%s", want, table)
		}
	}
}
