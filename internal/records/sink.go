package records

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Sink turns the event writes of a controller's own broadcaster
// (record.NewBroadcaster with StartRecordingToSink, or events.NewBroadcaster
// with an events.k8s.io/v1 sink) into the events the controller recorded,
// one per Eventf where client-go writes one. It remembers the events
// written so far, by name, so that a patch of one (client-go's count or
// series update for a repeated event) can be turned back into the event
// it repeats.
type Sink struct {
	mu     sync.Mutex
	byName map[string]Event
}

// Note returns the event a write of an Event carries (its verb, API
// group, namespace, name, object and patch), with the time an
// events.k8s.io event was observed (zero for core/v1 events); ok is false
// when the write tells of no new event.
func (s *Sink) Note(verb, group, namespace, name string, object runtime.Object, patch []byte) (e Event, at time.Time, ok bool) {
	key := group + " " + namespace + "/" + name
	switch obj := object.(type) {
	case *corev1.Event: // create or update
		e, ok = CoreEvent(obj), true
		key = group + " " + obj.Namespace + "/" + obj.Name
	case *eventsv1.Event:
		e, at, ok = EventsV1Event(obj), obj.EventTime.Time, true
		if obj.Series != nil {
			at = obj.Series.LastObservedTime.Time
		}
		key = group + " " + obj.Namespace + "/" + obj.Name
	default:
		if verb != "patch" {
			return Event{}, time.Time{}, false
		}
		s.mu.Lock()
		e, ok = s.byName[key]
		s.mu.Unlock()
		if !ok { // a patch of an event the fixture never saw written
			return Event{}, time.Time{}, false
		}
		var p struct {
			Message *string `json:"message"`
			Series  *struct {
				LastObservedTime metav1.MicroTime `json:"lastObservedTime"`
			} `json:"series"`
		}
		if json.Unmarshal(patch, &p) == nil {
			if p.Message != nil {
				e.Message = strings.TrimPrefix(*p.Message, CombinedPrefix)
			}
			if p.Series != nil {
				at = p.Series.LastObservedTime.Time
			}
		}
	}
	if !ok {
		return Event{}, time.Time{}, false
	}
	s.mu.Lock()
	if s.byName == nil {
		s.byName = map[string]Event{}
	}
	_, seen := s.byName[key]
	s.byName[key] = e
	s.mu.Unlock()
	if seen && verb != "patch" {
		// The create a broadcaster falls back to when the patch of a
		// repeated event found nothing (its create was still in flight):
		// the patch stood for the event already.
		return Event{}, time.Time{}, false
	}
	if group == "" {
		at = time.Time{} // one goroutine writes them, in order
	}
	return e, at, true
}
