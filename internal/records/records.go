// Package records holds the plain types the engines and the fixture share,
// defined once: an event a controller recorded, what a
// CustomResourceDefinition declares about a resource, the JSON paths of a
// scale subresource, and an event a delivery told an informer's handlers.
// It imports nothing of the module.
package records

import (
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Ref names the object an event is about.
type Ref struct{ Kind, Namespace, Name string }

// Event is one event a controller recorded (fixture.Event).
type Event struct {
	Object                        Ref
	Type, Reason, Message, Action string
	Related                       *Ref
	Annotations                   map[string]string
}

// Told is one event a delivery gave the event handlers of one informer
// (internal/delivery), with the keys they enqueued for it (each "key" or
// "queue: key"; the fixture fills them).
type Told struct {
	// Informer names the informer; Resource is the resource it lists.
	Informer, Resource string
	// Key is the object's cache key; What says what the handlers got ("an
	// update", "a tombstone (relist)", "a resync").
	Key, What string
	// Mark is the number of records the work-queue spies held when the
	// handlers got the event: theirs for it are those from Mark to the
	// next event's.
	Mark int
	Keys []string
}

// CombinedPrefix is what client-go's event aggregator puts before the
// message of the 11th and later similar events about one object.
const CombinedPrefix = "(combined from similar events): "

// CoreEvent is the event a core/v1 Event carries.
func CoreEvent(ev *corev1.Event) Event {
	o := ev.InvolvedObject
	return Event{
		Object:      Ref{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name},
		Type:        ev.Type,
		Reason:      ev.Reason,
		Message:     strings.TrimPrefix(ev.Message, CombinedPrefix),
		Annotations: copyAnnotations(ev.Annotations),
	}
}

// EventsV1Event is the event an events.k8s.io/v1 Event carries.
func EventsV1Event(ev *eventsv1.Event) Event {
	r := ev.Regarding
	e := Event{
		Object:      Ref{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name},
		Type:        ev.Type,
		Reason:      ev.Reason,
		Message:     ev.Note,
		Action:      ev.Action,
		Annotations: copyAnnotations(ev.Annotations),
	}
	if rel := ev.Related; rel != nil {
		e.Related = &Ref{Kind: rel.Kind, Namespace: rel.Namespace, Name: rel.Name}
	}
	return e
}

func copyAnnotations(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// ScalePaths are the JSON paths of a scale subresource, as a CRD declares
// it (spec.versions[].subresources.scale): of the replicas it asks for,
// of those it has, and of its label selector (a string, in the form a
// label selector query takes; "" for none).
type ScalePaths struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  string
}

// CustomResource is what a CustomResourceDefinition declares about one
// served version of its resource (records.CustomResource); Source names
// the definition in messages.
type CustomResource struct {
	GVK              schema.GroupVersionKind
	Resource         string
	Namespaced       bool
	Status           bool
	Scale            *ScalePaths
	SelectableFields []string
	Source           string
}
