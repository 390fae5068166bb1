package parity

import (
	"errors"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// The classification of divergences, on sides made by hand (the examples
// module compares real runs).

var deploymentsGVR = appsv1.SchemeGroupVersion.WithResource("deployments")

func dep(mutate ...func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)}}
	for _, m := range mutate {
		m(d)
	}
	return d
}

func side(writes []actions.Action, err error, objs ...k8sruntime.Object) Side {
	s := Side{Writes: writes, Err: err, Objects: objs, resources: map[string]schema.GroupVersionResource{}}
	for _, o := range objs {
		if _, ok := o.(*appsv1.Deployment); ok {
			s.resources[objectName(o)] = deploymentsGVR
		}
	}
	return s
}

// labelledUID gives a Deployment the uid, and copies it into a label
// and a selector, as a Job's strategy does.
func labelledUID(uid string) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) {
		d.UID = types.UID(uid)
		d.Labels = map[string]string{"controller-uid": uid}
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"controller-uid": uid}}
	}
}

func kindsOf(ds []Divergence) []Kind {
	var out []Kind
	for _, d := range ds {
		out = append(out, d.Kind)
	}
	return out
}

func TestDiverge(t *testing.T) {
	update := actions.Action{Verb: actions.VerbUpdate, Resource: deploymentsGVR, Namespace: "default", Name: "web"}
	updateWith := func(d *appsv1.Deployment) actions.Action { u := update; u.Object = d; return u }
	defaulted := func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](10) }
	withStatus := func(d *appsv1.Deployment) { d.Status.Replicas = 3 }
	deleting := func(d *appsv1.Deployment) {
		d.Finalizers, d.DeletionTimestamp = []string{"example.com/keep"}, ptr.To(metav1.Now())
	}
	conflict := errors.New(`Operation cannot be fulfilled on deployments.apps "web": the object has been modified`)
	gen := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "web-", Name: name}}
	}

	tests := []struct {
		name           string
		fakes, server  Side
		answers        []Response
		filled         filledFunc
		want           []Kind
		detailContains string
	}{{
		name:  "the same",
		fakes: side([]actions.Action{updateWith(dep())}, nil, dep()),
		server: side([]actions.Action{updateWith(dep(func(d *appsv1.Deployment) {
			d.ResourceVersion, d.UID = "7", "server-uid" // volatile: does not count
		}))}, nil, dep()),
		answers: []Response{{Code: 200}},
	}, {
		name:           "server defaults in the object and in what was sent",
		fakes:          side([]actions.Action{updateWith(dep())}, nil, dep()),
		server:         side([]actions.Action{updateWith(dep(defaulted))}, nil, dep(defaulted)),
		answers:        []Response{{Code: 200}},
		want:           []Kind{Defaulting, Defaulting},
		detailContains: "spec.revisionHistoryLimit: fakes unset, server 10",
	}, {
		name:           "a field the server fills on a create is a default",
		fakes:          side([]actions.Action{updateWith(dep())}, nil, dep()),
		server:         side([]actions.Action{updateWith(dep(defaulted))}, nil, dep(defaulted)),
		answers:        []Response{{Code: 200}},
		filled:         fills("spec.revisionHistoryLimit"),
		want:           []Kind{Defaulting, Defaulting},
		detailContains: "spec.revisionHistoryLimit: fakes unset, server 10",
	}, {
		// A status count the controller wrote from what its informer held:
		// the fakes' 0 is no default the server would have filled.
		name:           "a field the server does not fill is no default",
		fakes:          side([]actions.Action{updateWith(dep())}, nil, dep()),
		server:         side([]actions.Action{updateWith(dep(defaulted))}, nil, dep(defaulted)),
		answers:        []Response{{Code: 200}},
		filled:         fills("spec.progressDeadlineSeconds"),
		want:           []Kind{Writes, Objects},
		detailContains: "spec.revisionHistoryLimit: fakes unset, server 10",
	}, {
		name:    "the server's fields unknown",
		fakes:   side([]actions.Action{updateWith(dep())}, nil, dep()),
		server:  side([]actions.Action{updateWith(dep(defaulted))}, nil, dep(defaulted)),
		answers: []Response{{Code: 200}},
		filled: func(k8sruntime.Object, schema.GroupVersionResource) (map[string]bool, bool) {
			return nil, false
		},
		want: []Kind{Defaulting, Defaulting},
	}, {
		name:           "status kept out of a plain update",
		fakes:          side([]actions.Action{updateWith(dep(withStatus))}, nil, dep(withStatus)),
		server:         side([]actions.Action{updateWith(dep(withStatus))}, nil, dep()),
		answers:        []Response{{Code: 200}},
		want:           []Kind{StatusSplit},
		detailContains: "status.replicas: fakes 3, server unset",
	}, {
		name:   "a status the fakes wrote with a status update is no split",
		fakes:  side([]actions.Action{{Verb: actions.VerbUpdate, Resource: deploymentsGVR, Subresource: "status", Namespace: "default", Name: "web"}}, nil, dep(withStatus)),
		server: side([]actions.Action{{Verb: actions.VerbUpdate, Resource: deploymentsGVR, Subresource: "status", Namespace: "default", Name: "web"}}, nil, dep()),
		want:   []Kind{Objects},
	}, {
		name:           "kept for its finalizers",
		fakes:          side(nil, nil),
		server:         side(nil, nil, dep(deleting)),
		want:           []Kind{Finalizers},
		detailContains: "example.com/keep",
	}, {
		name:   "both being deleted, at different times",
		fakes:  side(nil, nil, dep(deleting)),
		server: side(nil, nil, dep(deleting, func(d *appsv1.Deployment) { d.DeletionTimestamp = ptr.To(metav1.Unix(5, 0)) })),
	}, {
		name:   "named from generateName by the server only",
		fakes:  side(nil, nil, gen("")),
		server: side(nil, nil, gen("web-x7k2p")),
		want:   []Kind{GenerateName, GenerateName},
	}, {
		name:   "named from generateName by both",
		fakes:  side(nil, nil, gen("web-00001")),
		server: side(nil, nil, gen("web-x7k2p")),
	}, {
		name:   "left by the fakes' delete-collection",
		fakes:  side([]actions.Action{{Verb: actions.VerbDeleteCollection, Resource: deploymentsGVR, Namespace: "default"}}, nil, dep()),
		server: side([]actions.Action{{Verb: actions.VerbDeleteCollection, Resource: deploymentsGVR, Namespace: "default"}}, nil),
		want:   []Kind{DeleteCollection},
	}, {
		name:           "refused as invalid",
		fakes:          side([]actions.Action{updateWith(dep())}, nil, dep()),
		server:         side([]actions.Action{updateWith(dep())}, errors.New("invalid"), dep()),
		answers:        []Response{{Code: 422, Message: "spec.replicas: Invalid value"}},
		want:           []Kind{Validation},
		detailContains: "spec.replicas: Invalid value",
	}, {
		name:    "refused as a conflict",
		fakes:   side([]actions.Action{updateWith(dep())}, nil, dep()),
		server:  side([]actions.Action{updateWith(dep())}, conflict, dep()),
		answers: []Response{{Code: 409}},
		want:    []Kind{ResourceVersion},
	}, {
		name:    "refused by both alike",
		fakes:   side([]actions.Action{updateWith(dep())}, conflict, dep()),
		server:  side([]actions.Action{updateWith(dep())}, conflict, dep()),
		answers: []Response{{Code: 409}},
	}, {
		name:   "other writes, other error",
		fakes:  side([]actions.Action{update}, nil, dep()),
		server: side(nil, errors.New("boom"), dep()),
		want:   []Kind{Writes, Error},
	}, {
		name:   "another value",
		fakes:  side(nil, nil, dep()),
		server: side(nil, nil, dep(func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](2) })),
		want:   []Kind{Objects},
	}, {
		name:   "on one side only",
		fakes:  side(nil, nil, dep()),
		server: side(nil, nil),
		want:   []Kind{Objects},
	}, {
		// A server copies a uid into other fields (a Job's selector and
		// labels): a created object's uid does not count there either.
		name:   "a created object's uid, copied into its labels and into a write",
		fakes:  side([]actions.Action{updateWith(dep(labelledUID("fakes-uid")))}, nil, dep(labelledUID("fakes-uid"))),
		server: side([]actions.Action{updateWith(dep(labelledUID("server-uid")))}, nil, dep(labelledUID("server-uid"))),
	}, {
		name:           "a uid in a label that is no object's on both sides",
		fakes:          side(nil, nil, dep(labelledUID("fakes-uid"))),
		server:         side(nil, nil, dep(labelledUID("server-uid"), func(d *appsv1.Deployment) { d.Name = "other" })),
		want:           []Kind{Objects, Objects},
		detailContains: "exists on the server only",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.server.Answers = tt.answers
			got := diverge(tt.fakes, tt.server, false, tt.filled)
			if !slices.Equal(kindsOf(got), tt.want) {
				t.Errorf("divergences %v, want %v:\n%v", kindsOf(got), tt.want, got)
			}
			if tt.detailContains != "" && (len(got) == 0 || !strings.Contains(got[0].Detail, tt.detailContains)) {
				t.Errorf("detail lacks %q:\n%v", tt.detailContains, got)
			}
		})
	}
}

// fills is a filledFunc: the server fills paths of every object.
func fills(paths ...string) filledFunc {
	set := map[string]bool{}
	for _, p := range paths {
		set[p] = true
	}
	return func(k8sruntime.Object, schema.GroupVersionResource) (map[string]bool, bool) { return set, true }
}

func TestDivergeEvents(t *testing.T) {
	ev := func(reason string) []records.Event { return []records.Event{{Type: "Normal", Reason: reason}} }
	fakes, server := side(nil, nil), side(nil, nil)
	fakes.Events, server.Events = ev("Synced"), ev("Failed")
	if got := kindsOf(diverge(fakes, server, false, nil)); !slices.Equal(got, []Kind{Events}) {
		t.Errorf("divergences %v, want [events]", got)
	}
}

func TestIsZero(t *testing.T) {
	for _, v := range []any{nil, "", false, int64(0), float64(0), map[string]any{}, map[string]any{"a": map[string]any{"b": ""}}, []any{}} {
		if !isZero(v) {
			t.Errorf("isZero(%#v) = false", v)
		}
	}
	for _, v := range []any{"x", true, int64(1), map[string]any{"a": int64(1)}, []any{""}} {
		if isZero(v) {
			t.Errorf("isZero(%#v) = true", v)
		}
	}
}

func TestValidateKnown(t *testing.T) {
	rows := []fixture.Row{{Name: "creates"}}
	for _, tt := range []struct {
		known Known
		want  string
	}{
		{Known{Kind: "typo", Reason: "r"}, "unknown kind"},
		{Known{Row: "nope", Kind: Defaulting, Reason: "r"}, "no such row"},
		{Known{Row: "creates", Kind: Defaulting}, "give the reason"},
	} {
		if err := validateKnown(rows, []Known{tt.known}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("validateKnown(%+v) = %v, want %q", tt.known, err, tt.want)
		}
	}
	if err := validateKnown(rows, []Known{{Row: "creates", Kind: Defaulting, Reason: "r"}, {Kind: Events, Reason: "r"}}); err != nil {
		t.Errorf("validateKnown of valid entries: %v", err)
	}
}

func TestReportString(t *testing.T) {
	rep := &Report{Row: "creates", Fakes: side(nil, nil, dep()), Server: side(nil, errors.New("boom"), dep()),
		Divergences: []Divergence{{Kind: Error, What: "the sync's error", Detail: "fakes: (none)\nserver: boom"}, {Kind: Defaulting, What: "x", Known: "why"}}}
	s := rep.String()
	for _, want := range []string{`row "creates": 2 divergence(s), 1 unknown`, "server error:   boom", "fakes  objects: deployment default/web", "- error: the sync's error\n    fakes: (none)\n    server: boom", "(known: why)"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
}

// TestDivergeUnordered: writes in another order diverge, unless the row
// matches its actions regardless of order (actions.Unordered); then a
// write's content still counts.
func TestDivergeUnordered(t *testing.T) {
	patch := func(name, body string) actions.Action {
		return actions.Action{Verb: actions.VerbPatch, Resource: deploymentsGVR, Namespace: "default", Name: name, PatchType: "application/strategic-merge-patch+json", Patch: []byte(body)}
	}
	fakes := side([]actions.Action{patch("b", `{"x":1}`), patch("a", `{"x":1}`)}, nil)
	server := side([]actions.Action{patch("a", `{"x":1}`), patch("b", `{"x":1}`)}, nil)
	if got := kindsOf(diverge(fakes, server, false, nil)); !slices.Equal(got, []Kind{Writes}) {
		t.Errorf("in order: divergences %v, want [writes]", got)
	}
	if got := kindsOf(diverge(fakes, server, true, nil)); len(got) != 0 {
		t.Errorf("unordered: divergences %v, want none", got)
	}
	server.Writes[1].Patch = []byte(`{"x":2}`)
	if got := kindsOf(diverge(fakes, server, true, nil)); !slices.Equal(got, []Kind{Writes}) {
		t.Errorf("unordered, b's patch differs: divergences %v, want [writes]", got)
	}
	if fakes.Writes[0].Name != "b" {
		t.Error("diverge reordered the caller's writes")
	}
}

// TestUnusedKnown: a declaration no row used is named, unless it occurs
// only sometimes.
func TestUnusedKnown(t *testing.T) {
	known := []Known{{Row: "a", Kind: Writes}, {Row: "b", Kind: Events}, {Row: "c", Kind: Writes, Sometimes: true}}
	got := unusedKnown(known, []bool{true, false, false})
	if len(got) != 1 || !strings.Contains(got[0], `parity.Known{Row: "b", Kind: "events"} did not occur: remove it`) {
		t.Errorf("unusedKnown = %q, want b's alone", got)
	}
}
