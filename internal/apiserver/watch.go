package apiserver

import (
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// TransformWatch returns a watch of fn's form of w's events, in order; an
// event for which fn returns false is not sent. fn runs on the watch's
// one goroutine, so it may keep state without a lock. Stopping the returned
// watch stops w, and so does closing done (nil: never). Its goroutine ends
// then, or when w ends, even while nobody reads its events: apimachinery's
// watch.Filter would stay blocked sending one.
func TransformWatch(w watch.Interface, done <-chan struct{}, fn func(watch.Event) (watch.Event, bool)) watch.Interface {
	tw := &transformedWatch{in: w, out: make(chan watch.Event), stop: make(chan struct{})}
	go tw.loop(done, fn)
	return tw
}

type transformedWatch struct {
	in   watch.Interface
	out  chan watch.Event
	stop chan struct{}
	once sync.Once
}

func (tw *transformedWatch) ResultChan() <-chan watch.Event { return tw.out }

func (tw *transformedWatch) Stop() {
	tw.once.Do(func() {
		close(tw.stop)
		tw.in.Stop()
	})
}

func (tw *transformedWatch) loop(done <-chan struct{}, fn func(watch.Event) (watch.Event, bool)) {
	defer close(tw.out)
	in := tw.in.ResultChan()
	for {
		var ev watch.Event
		select {
		case e, ok := <-in:
			if !ok {
				return
			}
			ev = e
		case <-tw.stop:
			return
		case <-done:
			tw.Stop()
			return
		}
		ev, send := fn(ev)
		if !send {
			continue
		}
		select {
		case tw.out <- ev:
		case <-tw.stop:
			return
		case <-done:
			tw.Stop()
			return
		}
	}
}
