package clientgo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/internal/kubeminor"
)

// The probe tells what the tracker of this build does: client-go 1.36
// added the existing objects to a watch given list options.
func TestTrackerSendsExisting(t *testing.T) {
	_, minor := kubeminor.Running()
	if minor == 0 {
		t.Skip("client-go's version is unknown in this build")
	}
	if got, want := TrackerSendsExisting(), minor >= 36; got != want {
		t.Errorf("TrackerSendsExisting() = %v on client-go 1.%d, want %v: client-go/testing's tracker.Watch changed; read k8s.io/client-go/testing/fixture.go", got, minor, want)
	}
}

// Watch sends the same events on every minor: given list options, the
// tracker's objects newer than the resourceVersion as ADDED, then changes.
func TestWatch(t *testing.T) {
	pods := corev1.SchemeGroupVersion.WithResource("pods")
	kind := corev1.SchemeGroupVersion.WithKind("Pod")
	pod := func(ns, name, rv string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
	}
	newTracker := func(t *testing.T) clienttesting.ObjectTracker {
		tracker := clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
		for _, p := range []*corev1.Pod{pod("ns", "b", "7"), pod("ns", "a", "5"), pod("other", "c", "6")} {
			if err := tracker.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		return tracker
	}
	tests := []struct {
		name string
		ns   string
		opts []metav1.ListOptions
		want []string
	}{
		{"no options: only changes", "ns", nil, []string{"ADDED ns/d"}},
		{"no resourceVersion: every object", "ns", []metav1.ListOptions{{}}, []string{"ADDED ns/a", "ADDED ns/b", "ADDED ns/d"}},
		{"resourceVersion 0: every object", "ns", []metav1.ListOptions{{ResourceVersion: "0"}}, []string{"ADDED ns/a", "ADDED ns/b", "ADDED ns/d"}},
		{"every namespace", "", []metav1.ListOptions{{}}, []string{"ADDED ns/a", "ADDED ns/b", "ADDED other/c", "ADDED ns/d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tracker := newTracker(t)
			w, err := Watch(tracker, pods, kind, tt.ns, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if err := tracker.Create(pods, pod("ns", "d", "9"), "ns"); err != nil {
				t.Fatal(err)
			}
			var got []string
			for len(got) < len(tt.want) {
				ev := <-w.ResultChan()
				p := ev.Object.(*corev1.Pod)
				got = append(got, string(ev.Type)+" "+p.Namespace+"/"+p.Name)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
			if n := len(w.ResultChan()); n != 0 {
				t.Errorf("%d more events", n)
			}
		})
	}
	// From a resourceVersion: the objects newer than it (by the tracker's
	// own count on 1.36 and later, by their resourceVersion on 1.35).
	tracker := newTracker(t)
	list, err := tracker.List(pods, kind, "ns")
	if err != nil {
		t.Fatal(err)
	}
	rv := list.(*corev1.PodList).ResourceVersion
	if rv == "" {
		// 1.35's tracker gives no list a resourceVersion; the world's
		// list says the newest it has given (internal/world versionLists).
		rv = "7"
	}
	if err := tracker.Update(pods, pod("ns", "a", "8"), "ns"); err != nil {
		t.Fatal(err)
	}
	w, err := Watch(tracker, pods, kind, "ns", metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	for len(w.ResultChan()) > 0 {
		ev := <-w.ResultChan()
		got = append(got, string(ev.Type)+" "+ev.Object.(*corev1.Pod).Name)
	}
	want := []string{"ADDED a"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("watch from resourceVersion %s (-want +got):\n%s", rv, d)
	}
	if _, err := Watch(tracker, pods, kind, "ns", metav1.ListOptions{ResourceVersion: "x"}); err == nil {
		t.Error("Watch from resourceVersion x: no error")
	}
}
