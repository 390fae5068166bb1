package apiserver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

var (
	podRes        = &Resource{GVR: corev1.SchemeGroupVersion.WithResource("pods"), GVK: corev1.SchemeGroupVersion.WithKind("Pod"), Namespaced: true, Status: true}
	deploymentRes = &Resource{GVR: appsv1.SchemeGroupVersion.WithResource("deployments"), GVK: appsv1.SchemeGroupVersion.WithKind("Deployment"), Namespaced: true, Status: true}
	nodeRes       = &Resource{GVR: corev1.SchemeGroupVersion.WithResource("nodes"), GVK: corev1.SchemeGroupVersion.WithKind("Node"), Status: true}
	jobRes        = &Resource{GVR: batchv1.SchemeGroupVersion.WithResource("jobs"), GVK: batchv1.SchemeGroupVersion.WithKind("Job"), Namespaced: true, Status: true}
	sliceRes      = &Resource{GVR: schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}, GVK: schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceSlice"}}
	eventRes      = &Resource{GVR: eventsv1.SchemeGroupVersion.WithResource("events"), GVK: eventsv1.SchemeGroupVersion.WithKind("Event"), Namespaced: true}
	widgetRes     = &Resource{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
		Namespaced: true, Custom: true, SelectableFields: []string{".spec.color", ".spec.size"}}
	clusterWidgetRes = &Resource{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "clusterwidgets"}, GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "ClusterWidget"}, Custom: true}
)

func pod(name, node string, edit ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": name}}, Spec: corev1.PodSpec{NodeName: node}}
	for _, e := range edit {
		e(p)
	}
	return p
}

func widget(name, color string, size int64) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "ns", "name": name}, "spec": map[string]any{"color": color, "size": size}}}
	return u
}

// Each selector form selects what the server selects, on the fields the
// server knows for the kind, with its values.
func TestSelectMatches(t *testing.T) {
	running := func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodRunning
		p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}
	}
	for _, tc := range []struct {
		name   string
		r      *Resource
		labels string
		fields string
		obj    runtime.Object
		want   bool
	}{
		{"metadata.name =", podRes, "", "metadata.name=a", pod("a", ""), true},
		{"metadata.name = other", podRes, "", "metadata.name=b", pod("a", ""), false},
		{"metadata.name ==", podRes, "", "metadata.name==a", pod("a", ""), true},
		{"metadata.name !=", podRes, "", "metadata.name!=a", pod("a", ""), false},
		{"metadata.namespace", deploymentRes, "", "metadata.namespace=ns", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d"}}, true},
		{"spec.nodeName =", podRes, "", "spec.nodeName=n1", pod("a", "n1"), true},
		{"spec.nodeName = other", podRes, "", "spec.nodeName=n1", pod("a", "n2"), false},
		{"spec.nodeName != empty (scheduled)", podRes, "", "spec.nodeName!=", pod("a", "n1"), true},
		{"spec.nodeName != empty (unscheduled)", podRes, "", "spec.nodeName!=", pod("a", ""), false},
		{"spec.host is spec.nodeName", podRes, "", "spec.host=n1", pod("a", "n1"), true},
		{"status.phase", podRes, "", "status.phase=Running", pod("a", "", running), true},
		{"status.podIP is the first of podIPs", podRes, "", "status.podIP=10.0.0.1", pod("a", "", running), true},
		{"status.podIPs has no value", podRes, "", "status.podIPs=10.0.0.1", pod("a", "", running), false},
		{"spec.hostNetwork defaults to false", podRes, "", "spec.hostNetwork=false", pod("a", ""), true},
		{"two terms", podRes, "", "spec.nodeName=n1,metadata.name!=a", pod("a", "n1"), false},
		{"labels and fields", podRes, "app=a", "spec.nodeName=n1", pod("a", "n1"), true},
		{"labels fail", podRes, "app=b", "spec.nodeName=n1", pod("a", "n1"), false},
		{"node spec.unschedulable", nodeRes, "", "spec.unschedulable=true", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: corev1.NodeSpec{Unschedulable: true}}, true},
		{"job status.successful of none", jobRes, "", "status.successful=0", &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j"}}, true},
		{"job status.successful", jobRes, "", "status.successful=2", &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j"}, Status: batchv1.JobStatus{Succeeded: 2}}, true},
		{"events.k8s.io regarding.kind", eventRes, "", "regarding.kind=Pod,reportingController=kubelet", &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "e"}, Regarding: corev1.ObjectReference{Kind: "Pod"}, ReportingController: "kubelet"}, true},
		{"custom selectable string", widgetRes, "", "spec.color=red", widget("w", "red", 3), true},
		{"custom selectable integer", widgetRes, "", "spec.size=3", widget("w", "red", 3), true},
		{"custom selectable !=", widgetRes, "", "spec.color!=red", widget("w", "red", 3), false},
		{"custom metadata.namespace", widgetRes, "", "metadata.namespace=ns", widget("w", "red", 3), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ls, err := labels.Parse(tc.labels)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := fields.ParseSelector(tc.fields)
			if err != nil {
				t.Fatal(err)
			}
			sel, ok, err := Select(tc.r, ls, fs)
			if err != nil || !ok {
				t.Fatalf("Select(%q, %q) = %v, %v; want a selection", tc.labels, tc.fields, ok, err)
			}
			if got := sel.Matches(tc.obj); got != tc.want {
				t.Errorf("labels %q fields %q: Matches = %v, want %v", tc.labels, tc.fields, got, tc.want)
			}
		})
	}
}

// A field the kind does not support is refused with the message of the
// kind's conversion function, as a BadRequest.
func TestSelectRefusesUnsupportedFields(t *testing.T) {
	for _, tc := range []struct {
		r     *Resource
		field string
		want  string
	}{
		{podRes, "spec.foo", "field label not supported: spec.foo"},
		{deploymentRes, "spec.replicas", `"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{nodeRes, "metadata.namespace", "field label not supported: metadata.namespace"},
		{jobRes, "spec.parallelism", `field label "spec.parallelism" not supported for Job`},
		{sliceRes, "spec.foo", "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.foo"},
		{widgetRes, "spec.shape", "field label not supported: spec.shape"},
		{clusterWidgetRes, "metadata.namespace", "field label not supported: metadata.namespace"},
	} {
		_, _, err := Select(tc.r, nil, fields.OneTermEqualSelector(tc.field, "x"))
		if !apierrors.IsBadRequest(err) || err.Error() != tc.want {
			t.Errorf("%s %s: %v; want a BadRequest %q", tc.r.GVK.Kind, tc.field, err, tc.want)
		}
	}
}

// A request without selectors selects everything and costs nothing more.
func TestSelectEverything(t *testing.T) {
	for _, tc := range []struct {
		ls labels.Selector
		fs fields.Selector
	}{{nil, nil}, {labels.Everything(), fields.Everything()}} {
		if _, ok, err := Select(podRes, tc.ls, tc.fs); ok || err != nil {
			t.Errorf("Select(%v, %v) = %v, %v; want no selection", tc.ls, tc.fs, ok, err)
		}
	}
}

func TestFilterList(t *testing.T) {
	sel, _, err := Select(podRes, nil, fields.OneTermEqualSelector("spec.nodeName", "n1"))
	if err != nil {
		t.Fatal(err)
	}
	list := &corev1.PodList{Items: []corev1.Pod{*pod("a", "n1"), *pod("b", "n2"), *pod("c", "n1")}}
	if err := sel.FilterList(list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range list.Items {
		got = append(got, p.Name)
	}
	if d := cmp.Diff([]string{"a", "c"}, got); d != "" {
		t.Errorf("filtered list (-want +got):\n%s", d)
	}
}

// A filtered watch sends what the server's watch cache sends: objects
// entering the selection as Added, leaving it as Deleted, and nothing of
// objects outside it.
func TestSelectionWatch(t *testing.T) {
	tracker := clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
	gvr := podRes.GVR
	if err := tracker.Add(pod("a", "n1")); err != nil {
		t.Fatal(err)
	}
	sel, _, err := Select(podRes, nil, fields.OneTermEqualSelector("spec.nodeName", "n1"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := tracker.Watch(gvr, "ns", metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.ResultChan()) == 0 {
		// client-go 1.36's tracker sends the pod it holds as ADDED, as a
		// server does; 1.35's does not, and the world sends it then
		// (clientgo.Watch): the watch filtered gets the same events.
		w.(*watch.RaceFreeFakeWatcher).Add(pod("a", "n1"))
	}
	fw := sel.Watch(w, nil)
	defer fw.Stop()
	steps := []func() error{
		func() error { return tracker.Create(gvr, pod("b", "n2"), "ns") }, // outside: nothing
		func() error { return tracker.Update(gvr, pod("b", "n1"), "ns") }, // enters: Added
		func() error {
			return tracker.Update(gvr, pod("a", "n1", func(p *corev1.Pod) { p.Labels["x"] = "y" }), "ns")
		},
		func() error { return tracker.Update(gvr, pod("a", "n2"), "ns") }, // leaves: Deleted
		func() error { return tracker.Delete(gvr, "ns", "a") },            // outside: nothing
		func() error { return tracker.Delete(gvr, "ns", "b") },            // inside: Deleted
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"ADDED a n1", "ADDED b n1", "MODIFIED a n1", "DELETED a n1", "DELETED b n1"}
	var got []string
	timeout := time.After(5 * time.Second)
	for len(got) < len(want) {
		select {
		case ev := <-fw.ResultChan():
			p := ev.Object.(*corev1.Pod)
			got = append(got, string(ev.Type)+" "+p.Name+" "+p.Spec.NodeName)
		case <-timeout:
			t.Fatalf("events %q; want %q", got, want)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("watch events (-want +got):\n%s", d)
	}
	fw.Stop()
	for ev := range fw.ResultChan() {
		t.Errorf("event after Stop: %v", ev.Type)
	}
}

// A watch that follows a list knows the listed objects: one that leaves
// the selection is Deleted although the watch never sent it.
func TestSelectionWatchKnown(t *testing.T) {
	tracker := clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
	sel, _, err := Select(podRes, labels.SelectorFromSet(labels.Set{"app": "a"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tracker.Add(pod("a", "")); err != nil {
		t.Fatal(err)
	}
	w, err := tracker.Watch(podRes.GVR, "ns") // no options: existing objects are not resent
	if err != nil {
		t.Fatal(err)
	}
	fw := sel.Watch(w, nil, pod("a", ""))
	defer fw.Stop()
	if err := tracker.Update(podRes.GVR, pod("a", "", func(p *corev1.Pod) { p.Labels["app"] = "b" }), "ns"); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-fw.ResultChan():
		if ev.Type != "DELETED" || ev.Object.(*corev1.Pod).Labels["app"] != "a" {
			t.Errorf("event %s %v; want DELETED with the last selected state", ev.Type, ev.Object)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event for a known object leaving the selection")
	}
}

// Closing done ends the watch: a watch its client forgot to stop does not
// outlive the world it watches.
func TestSelectionWatchDone(t *testing.T) {
	tracker := clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
	sel, _, err := Select(podRes, labels.SelectorFromSet(labels.Set{"app": "a"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tracker.Watch(podRes.GVR, "ns")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	fw := sel.Watch(w, done)
	close(done)
	select {
	case _, ok := <-fw.ResultChan():
		if ok {
			t.Errorf("an event after done")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not end when done closed")
	}
}
