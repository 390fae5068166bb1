package clientgo

import (
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
)

// TrackerSendsExisting reports whether client-go's object tracker
// (clienttesting.NewObjectTracker) sends the objects it holds as ADDED
// events when a watch is given list options, as a server does (client-go
// 1.36 and later; 1.35's sends only later changes). Found out once per
// process by asking a tracker of one ConfigMap, not from a version string.
var TrackerSendsExisting = sync.OnceValue(func() bool {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err) // a static scheme: never
	}
	tracker := clienttesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())
	if err := tracker.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "probe"}}); err != nil {
		panic(err)
	}
	w, err := tracker.Watch(corev1.SchemeGroupVersion.WithResource("configmaps"), "probe", metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	defer w.Stop()
	// The tracker queues the existing objects before Watch returns.
	select {
	case ev := <-w.ResultChan():
		return ev.Type == watch.Added
	default:
		return false
	}
})

// Watch is tracker.Watch(gvr, ns, opts...) as client-go 1.36 and later's
// tracker answers it, on every supported minor: given list options, the
// watch first sends as ADDED each object of gvr the tracker holds in ns
// (every namespace for "") that is newer than opts.ResourceVersion (every
// one when it is "" or "0"), in the tracker's list order; without options,
// only later changes. gvk is gvr's kind, for the tracker's list.
//
// Where the tracker does so itself (TrackerSendsExisting), Watch is
// tracker.Watch. Elsewhere (1.35) it lists the tracker after the watch is
// registered and queues the objects on the tracker's watcher: an object a
// concurrent write creates in between is sent twice (an informer takes the
// second as an update), never lost. "Newer" compares the objects'
// metadata.resourceVersion (which the server model assigns in write order)
// where 1.36's tracker compares a counter of its own; an object whose
// resourceVersion is not a number is sent only for "" or "0". A watcher
// that is not client-go's fake one (a tracker of another implementation)
// is returned as it is.
func Watch(tracker clienttesting.ObjectTracker, gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns string, opts ...metav1.ListOptions) (watch.Interface, error) {
	if len(opts) == 0 || TrackerSendsExisting() {
		return tracker.Watch(gvr, ns, opts...)
	}
	from := int64(0)
	if rv := opts[0].ResourceVersion; rv != "" {
		n, err := strconv.ParseInt(rv, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid ResourceVersion %q in ListOptions, must be int64: %w", rv, err)
		}
		from = n
	}
	w, err := tracker.Watch(gvr, ns, opts...)
	if err != nil {
		return nil, err
	}
	fw, ok := w.(*watch.RaceFreeFakeWatcher)
	if !ok || gvk.Kind == "" {
		return w, nil
	}
	list, err := tracker.List(gvr, gvk, ns)
	if err != nil {
		w.Stop()
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		w.Stop()
		return nil, err
	}
	for _, item := range items {
		if newer(item, from) {
			fw.Add(item)
		}
	}
	return fw, nil
}

// newer reports whether obj's resourceVersion is after from (0: any).
func newer(obj runtime.Object, from int64) bool {
	if from == 0 {
		return true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	rv, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64)
	return err == nil && rv > from
}
