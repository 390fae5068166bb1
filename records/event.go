package records

import (
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Event is one event the controller recorded, through either
// k8s.io/client-go/tools/record or k8s.io/client-go/tools/events.
type Event struct {
	// Object is the object the event is about ("regarding").
	Object ObjectRef
	// Type is "Normal" or "Warning".
	Type   string
	Reason string
	// Message is the formatted message ("note" in the events API).
	Message string
	// Action and Related are the events API's; empty for record's events.
	Action  string
	Related *ObjectRef
	// Annotations are those given to AnnotatedEventf, if any.
	Annotations map[string]string
	// Match, set only in an expected event, decides whether a recorded
	// event with its object, type and reason matches (see
	// WithMessagePrefix and Where).
	Match func(got Event) error
}

// ObjectRef names an object. In an expected event, an empty Kind matches
// any kind.
type ObjectRef struct {
	Kind      string
	Namespace string
	Name      string
}

// String formats the reference as "Kind namespace/name".
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return fmt.Sprintf("%s %s", r.Kind, r.Name)
	}
	return fmt.Sprintf("%s %s/%s", r.Kind, r.Namespace, r.Name)
}

// String formats the event as one line.
func (e Event) String() string {
	return fmt.Sprintf("%s %s %s: %s", e.Object, e.Type, e.Reason, e.Message)
}

// WithMessagePrefix returns a copy of the expected event e that matches a
// recorded event like e whose message starts with prefix. Its Message
// becomes prefix followed by "…", which diffs show.
//
//	fixture.NewEvent(foo, "Warning", "FailedSync", "").WithMessagePrefix("error syncing Foo: ")
func (e Event) WithMessagePrefix(prefix string) Event {
	want := e
	e.Match = func(got Event) error {
		if !strings.HasPrefix(got.Message, prefix) {
			return fmt.Errorf("message %q does not start with %q", got.Message, prefix)
		}
		if d := cmp.Diff(want, got, cmpopts.IgnoreFields(Event{}, "Object", "Type", "Reason", "Message", "Match"), cmpopts.EquateEmpty()); d != "" {
			return fmt.Errorf("besides the message (-want +got):\n%s", d)
		}
		return nil
	}
	e.Message = prefix + "…"
	return e
}

// Where returns a copy of the expected event e that matches a recorded
// event with e's object, type and reason when match returns nil; the error
// it returns is shown in the diff. The other fields are not compared.
//
//	fixture.NewEvent(foo, "Warning", "FailedSync", "").Where(func(got records.Event) error {
//		if !strings.Contains(got.Message, "conflict") {
//			return fmt.Errorf("no conflict in %q", got.Message)
//		}
//		return nil
//	})
func (e Event) Where(match func(got Event) error) Event {
	e.Match = match
	return e
}
