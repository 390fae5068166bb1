package golden

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/records"
)

// Sync is what one sync did, as the fixture package hands it over for
// rendering.
type Sync struct {
	// Key is the synced key.
	Key string
	// Actions are the requests to record, in order.
	Actions []actions.Action
	// Refused holds the server's answer to each action it refused, by
	// index in Actions; it renders as the action's refused field.
	Refused map[int]string
	// Events are the recorded events, in order; each renders its object
	// and related object as "Kind namespace/name".
	Events []records.Event
	// Enqueued are the work-queue records, one line each, in order.
	Enqueued []string
	// Calls are the calls outside Kubernetes, one line each, in order;
	// none renders nothing.
	Calls []string
	// QueueUnseen says that the fixture had no work-queue spy (the
	// controller made its own queue): what it enqueued was not seen, and
	// enqueued does not render, rather than as an empty list.
	QueueUnseen bool
	// Err is the sync's error.
	Err error
	// Returned is what the sync function returned besides its error, as
	// one line (a Reconciler's reconcile.Result); "" renders nothing.
	Returned string
	// Kind, when set, names the kind of an object, so that objects render
	// with apiVersion and kind as kubectl shows them.
	Kind func(runtime.Object) (schema.GroupVersionKind, bool)
}

// eventDoc is an event as a golden file shows it.
type eventDoc struct {
	Object      string            `json:"object"`
	Type        string            `json:"type"`
	Reason      string            `json:"reason"`
	Message     string            `json:"message"`
	Action      string            `json:"action,omitempty"`
	Related     string            `json:"related,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type syncDoc struct {
	Key      string      `json:"key"`
	Returned string      `json:"returned,omitempty"`
	Actions  []actionDoc `json:"actions"`
	Events   []eventDoc  `json:"events"`
	Calls    []string    `json:"calls,omitempty"`
	Enqueued any         `json:"enqueued,omitempty"` // []string; nil when unseen
	Error    *string     `json:"error"`
}

type actionDoc struct {
	Verb         string `json:"verb"`
	APIVersion   string `json:"apiVersion"`
	Resource     string `json:"resource"`
	Subresource  string `json:"subresource,omitempty"`
	Namespace    string `json:"namespace,omitempty"`
	Name         string `json:"name,omitempty"`
	FieldManager string `json:"fieldManager,omitempty"`
	Object       any    `json:"object,omitempty"`
	PatchType    string `json:"patchType,omitempty"`
	Patch        any    `json:"patch,omitempty"`
	Refused      string `json:"refused,omitempty"`
}

// Render returns the canonical YAML of a sync: its key, one entry per
// action in order (verb, apiVersion, resource, subresource, namespace, name,
// field manager, and the object as kubectl get -o yaml shows it, or the
// patch type and body; the server's answer when it refused it), the events, the calls outside
// Kubernetes (when there are any), the enqueued records (no
// enqueued field when the fixture had no work-queue spy: QueueUnseen) and the error
// text, and what the sync function returned besides its error when it
// says (Returned).
// Keys are sorted, volatile metadata (actions.NormalizeVolatile) is removed
// but metadata.generation is kept (a reviewer checks a status's
// observedGeneration against it), lines end in LF and the text ends with a
// newline: the same sync renders to the same bytes on every run and machine.
//
// In every object and patch body, the set timestamps of status.conditions
// (lastTransitionTime, lastUpdateTime, lastHeartbeatTime, lastProbeTime)
// render as TimePlaceholder, and every UUID-shaped value of a field named
// uid (owner references, preconditions) as "<uid-N>", numbered by order of
// appearance in the document, so that uids made with uuid.NewUUID render
// the same on every run and equal uids stay visibly equal (KeepUIDs and
// actions.KeepConditionTimes turn these off). Options add transforms of your own
// (WithTransform, Mask), applied after these.
func Render(s Sync, opts ...Option) ([]byte, error) {
	c := newConfig(opts)
	ids := uids{}
	doc := syncDoc{Key: s.Key, Returned: s.Returned, Actions: []actionDoc{}, Events: []eventDoc{}, Calls: s.Calls}
	for _, e := range s.Events {
		ed := eventDoc{Object: e.Object.String(), Type: e.Type, Reason: e.Reason, Message: e.Message, Action: e.Action, Annotations: e.Annotations}
		if e.Related != nil {
			ed.Related = e.Related.String()
		}
		doc.Events = append(doc.Events, ed)
	}
	if !s.QueueUnseen {
		doc.Enqueued = append([]string{}, s.Enqueued...)
	}
	if s.Err != nil {
		msg := s.Err.Error()
		doc.Error = &msg
	}
	for i, a := range s.Actions {
		ad := actionDoc{
			Verb:         a.Verb,
			APIVersion:   a.Resource.GroupVersion().String(),
			Resource:     a.Resource.Resource,
			Subresource:  a.Subresource,
			Namespace:    a.Namespace,
			Name:         a.Name,
			FieldManager: a.FieldManager,
			PatchType:    string(a.PatchType),
			Refused:      s.Refused[i],
		}
		if a.Object != nil {
			obj, err := Object(a.Object, s.Kind)
			if err != nil {
				return nil, fmt.Errorf("action %d (%s): %v", i, a, err)
			}
			c.normalize(obj, ids)
			ad.Object = obj
		}
		if len(a.Patch) > 0 {
			ad.Patch = decodePatch(a.Patch)
			if m, ok := ad.Patch.(map[string]any); ok {
				c.normalize(m, ids)
			}
		}
		doc.Actions = append(doc.Actions, ad)
	}
	return yaml.Marshal(doc)
}

// normalize applies the built-in normalizers, then the caller's
// transforms, to one rendered object or patch body.
func (c *config) normalize(m map[string]any, ids uids) {
	if !c.keepConditionTimes {
		normalizeConditionTimes(m)
	}
	if !c.keepUIDs {
		ids.normalize(m)
	}
	for _, t := range c.transforms {
		t(m)
	}
}

// Object returns obj as a golden file shows it: a deep copy with volatile
// metadata removed (metadata.generation is kept), as an unstructured map
// with apiVersion and kind (from kind, when obj does not carry them).
func Object(obj runtime.Object, kind func(runtime.Object) (schema.GroupVersionKind, bool)) (map[string]any, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() && kind != nil {
		gvk, _ = kind(obj)
	}
	obj = obj.DeepCopyObject()
	var generation int64
	if m, err := meta.Accessor(obj); err == nil {
		generation = m.GetGeneration()
	}
	actions.NormalizeVolatile(obj)
	if m, err := meta.Accessor(obj); err == nil {
		m.SetGeneration(generation)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		if v, ok := md["creationTimestamp"]; ok && v == nil {
			delete(md, "creationTimestamp")
		}
	}
	if !gvk.Empty() {
		m["apiVersion"], m["kind"] = gvk.GroupVersion().String(), gvk.Kind
	}
	return m, nil
}

// decodePatch returns a JSON or YAML patch body as a document, or as text
// when it is neither.
func decodePatch(p []byte) any {
	var v any
	if err := json.Unmarshal(p, &v); err == nil {
		return v
	}
	if err := yaml.Unmarshal(p, &v); err == nil {
		if _, isMap := v.(map[string]any); isMap {
			return v
		}
	}
	return string(p)
}
