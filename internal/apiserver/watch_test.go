package apiserver

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TransformWatch sends fn's form of the events fn keeps, in order, and its
// goroutine ends on Stop or on done even while an event waits unread.
func TestTransformWatch(t *testing.T) {
	pod := func(name string) *corev1.Pod { return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	keepB := func(ev watch.Event) (watch.Event, bool) {
		if ev.Object.(*corev1.Pod).Name == "a" {
			return ev, false
		}
		ev.Type = watch.Modified
		return ev, true
	}
	for _, end := range []string{"stop", "done", "source"} {
		t.Run(end, func(t *testing.T) {
			src := watch.NewRaceFreeFake() // buffered: adds never block
			done := make(chan struct{})
			w := TransformWatch(src, done, keepB)
			src.Add(pod("a"))
			src.Add(pod("b"))
			src.Add(pod("c")) // with stop and done, never read: the watch ends while it waits to send it
			ev := <-w.ResultChan()
			if ev.Type != watch.Modified || ev.Object.(*corev1.Pod).Name != "b" {
				t.Fatalf("first event %s %v, want MODIFIED b", ev.Type, ev.Object)
			}
			switch end {
			case "stop":
				w.Stop()
			case "done":
				close(done)
			case "source":
				<-w.ResultChan() // c
				src.Stop()
			}
			timeout := time.After(5 * time.Second)
			for {
				select {
				case _, ok := <-w.ResultChan():
					if !ok {
						return
					}
				case <-timeout:
					t.Fatal("the watch's channel was not closed")
				}
			}
		})
	}
}
