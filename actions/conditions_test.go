package actions

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

func withCondition(at time.Time) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
	c := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "MinimumReplicasAvailable"}
	if !at.IsZero() {
		c.LastTransitionTime = metav1.NewTime(at)
		c.LastUpdateTime = metav1.NewTime(at)
	}
	d.Status.Conditions = []appsv1.DeploymentCondition{c}
	return d
}

// TestConditionTimesAreComparedAsSet: a condition stamped with the time of
// the sync matches an expectation with any set time, not an unset one,
// and every other field still counts; KeepConditionTimes compares values.
func TestConditionTimesAreComparedAsSet(t *testing.T) {
	written := withCondition(time.Date(2026, 11, 25, 17, 0, 0, 123456789, time.UTC))
	want := withCondition(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	got := []Action{UpdateStatus(written)}
	if d := Diff([]Action{UpdateStatus(want)}, got); d != "" {
		t.Errorf("set times differ by value only, yet:\n%s", d)
	}
	if d := Diff([]Action{UpdateStatus(withCondition(time.Time{}))}, got); !strings.Contains(d, "LastTransitionTime") {
		t.Errorf("an unset time matched a set one:\n%s", d)
	}
	other := withCondition(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	other.Status.Conditions[0].Reason = "Other"
	if d := Diff([]Action{UpdateStatus(other)}, got); !strings.Contains(d, "Reason") {
		t.Errorf("a different reason matched:\n%s", d)
	}
	if d := Diff([]Action{UpdateStatus(want)}, got, KeepConditionTimes()); !strings.Contains(d, "LastTransitionTime") {
		t.Errorf("KeepConditionTimes did not compare the times:\n%s", d)
	}
	// Unstructured objects and patch bodies too.
	u := func(at string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"namespace": "default", "name": "w"},
			"status":   map[string]any{"conditions": []any{map[string]any{"type": "Ready", "lastTransitionTime": at}}}}}
	}
	create := func(at string) Action {
		a := Create(u(at))
		a.Resource = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
		return a
	}
	if d := Diff([]Action{create("2020-01-01T00:00:00Z")}, []Action{create("2026-11-25T17:00:00Z")}); d != "" {
		t.Errorf("unstructured set times differ by value only, yet:\n%s", d)
	}
	patch := func(at string) Action {
		return Patch(written, types.MergePatchType, []byte(`{"status":{"conditions":[{"type":"Ready","lastTransitionTime":"`+at+`"}]}}`))
	}
	if d := Diff([]Action{patch("2020-01-01T00:00:00Z")}, []Action{patch("2026-11-25T17:00:00Z")}); d != "" {
		t.Errorf("patch set times differ by value only, yet:\n%s", d)
	}
}
