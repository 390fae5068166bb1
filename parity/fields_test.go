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
