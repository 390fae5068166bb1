package parity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestDiffFields(t *testing.T) {
	fakes := dep(func(d *appsv1.Deployment) { d.Labels = map[string]string{"a": "1"} })
	server := dep(func(d *appsv1.Deployment) {
		d.Labels = map[string]string{"a": "2"}
		d.ResourceVersion, d.UID, d.Generation = "5", "uid", 2 // volatile: not compared
		d.CreationTimestamp = metav1.Unix(100, 0)
		d.Spec.RevisionHistoryLimit = ptr.To[int32](10) // a default
	})
	got := DiffFields(fakes, server)
	want := []FieldDiff{
		{Path: "metadata.labels.a", Fakes: "1", Server: "2", InFakes: true, InServer: true},
		{Path: "spec.revisionHistoryLimit", Fakes: nil, Server: int64(10), InFakes: false, InServer: true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("DiffFields (-want +got):\n%s", d)
	}
	if got[0].Defaulted() || !got[1].Defaulted() {
		t.Errorf("Defaulted: %v, %v; want false (both set), true (set by the server only)", got[0].Defaulted(), got[1].Defaulted())
	}
	if s, want := got[1].String(), "spec.revisionHistoryLimit: fakes unset, server 10"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
	if d := DiffFields(fakes, fakes.DeepCopy()); d != nil {
		t.Errorf("DiffFields of equal objects = %v, want none", d)
	}
}

// Volatile fields do not count wherever they are nested: condition times,
// and the uid and resourceVersion of object references.
func TestDiffFieldsNestedVolatile(t *testing.T) {
	fakes := dep(func(d *appsv1.Deployment) {
		d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Foo", Name: "f", UID: "fake-uid"}}
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: "True",
			LastTransitionTime: metav1.Unix(1, 0), LastUpdateTime: metav1.Unix(1, 0)}}
	})
	server := dep(func(d *appsv1.Deployment) {
		d.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Foo", Name: "f", UID: "server-uid"}}
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: "False",
			LastTransitionTime: metav1.Unix(2000, 0), LastUpdateTime: metav1.Unix(3000, 0)}}
	})
	got := DiffFields(fakes, server)
	want := []FieldDiff{{Path: "status.conditions[0].status", Fakes: "True", Server: "False", InFakes: true, InServer: true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("DiffFields (-want +got):\n%s", d)
	}
	// A time present on one side only still counts.
	server.Status.Conditions[0].LastUpdateTime = metav1.Time{}
	if got := DiffFields(fakes, server); len(got) != 2 || got[0].Path != "status.conditions[0].lastUpdateTime" {
		t.Errorf("a time on one side only: %v; want it named", got)
	}
}
