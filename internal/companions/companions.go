package companions

import (
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
)

// Store is what the companions need of the world.
type Store interface {
	// Objects returns every object the world holds, as stored (uids and
	// resourceVersions included), by resource.
	Objects() ([]Object, error)
	// ResourceOf returns the resource that serves the kind an owner
	// reference names; false when none does.
	ResourceOf(apiVersion, kind string) (Resource, bool)
	// Do serves a write of the companions' as the server would, as
	// another client's; changed reports whether it changed the world.
	Do(action clienttesting.Action) (changed bool, err error)
}

// Resource is a resource of the world.
type Resource struct {
	GVR        schema.GroupVersionResource
	GVK        schema.GroupVersionKind
	Namespaced bool
}

// Object is an object the world holds, with its resource.
type Object struct {
	Resource
	Obj runtime.Object
}

// Engine runs the companions switched on.
type Engine struct {
	Store Store
	// GarbageCollector and Namespaces switch the garbage collector and
	// the namespace controller.
	GarbageCollector bool
	Namespaces       bool
	// Now is the clock of the namespace controller's conditions; nil is
	// time.Now.
	Now func() time.Time
	// MaxRounds bounds the rounds of a Settle; 0 is DefaultMaxRounds.
	MaxRounds int

	reported map[string]bool
}

// DefaultMaxRounds bounds the rounds of a Settle when Engine.MaxRounds is
// 0: each round that changes the world removes or changes an object, so a
// world of objects settles in a few rounds per level of ownership.
const DefaultMaxRounds = 100

// Finding is something a companion reports about the world.
type Finding struct {
	// Bad is set when the test's world cannot be what the test means (an
	// owner reference to a kind no registration serves); otherwise the
	// finding is a warning event the companion records on a cluster.
	Bad  bool
	Text string
}

// Outcome is what a Settle did.
type Outcome struct {
	// Rounds counts the rounds that changed the world.
	Rounds int
	// Writes lists the writes that changed the world, in order.
	Writes []string
	// Findings are those not reported by an earlier Settle, in order.
	Findings []Finding
}

// Settle runs the companions in rounds until a round changes nothing. It
// fails, naming the last round's writes, when MaxRounds rounds all
// changed the world.
func (e *Engine) Settle() (Outcome, error) {
	var out Outcome
	limit := e.MaxRounds
	if limit <= 0 {
		limit = DefaultMaxRounds
	}
	for {
		writes, err := e.round(&out)
		if err != nil {
			return out, err
		}
		if len(writes) == 0 {
			return out, nil
		}
		out.Rounds++
		out.Writes = append(out.Writes, writes...)
		if out.Rounds == limit {
			return out, fmt.Errorf("the garbage collector and the namespace controller did not settle within %d rounds, each changing the world; the last round:\n  %s",
				limit, strings.Join(writes, "\n  "))
		}
	}
}

// step is one thing a companion does to the world: its writes in order,
// the later skipped when one fails.
type step struct {
	what    string
	actions []clienttesting.Action
}

// round plans the companions' steps on the world as it is, then takes
// them; it returns the writes that changed the world.
func (e *Engine) round(out *Outcome) ([]string, error) {
	objs, err := e.Store.Objects()
	if err != nil {
		return nil, err
	}
	v := newView(objs)
	var steps []step
	if e.Namespaces {
		steps = append(steps, e.namespaceSteps(v)...)
	}
	if e.GarbageCollector {
		gc := &collector{v: v, store: e.Store}
		steps = append(steps, gc.steps()...)
		for _, f := range gc.findings {
			if !e.reported[f.Text] {
				if e.reported == nil {
					e.reported = map[string]bool{}
				}
				e.reported[f.Text] = true
				out.Findings = append(out.Findings, f)
			}
		}
	}
	var writes []string
	for _, s := range steps {
		for _, a := range s.actions {
			changed, err := e.Store.Do(a)
			if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
				break // the world moved on: the next round sees it
			}
			if err != nil {
				return writes, fmt.Errorf("%s: %s %s: %v", s.what, a.GetVerb(), describeAction(a), err)
			}
			if changed {
				writes = append(writes, s.what)
			}
		}
	}
	return writes, nil
}

func (e *Engine) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// view is the world as a round sees it, indexed.
type view struct {
	objs  []Object // sorted by resource, namespace and name
	byKey map[objectKey]Object
	byUID map[types.UID][]Object
}

type objectKey struct {
	gvr             schema.GroupVersionResource
	namespace, name string
}

func newView(objs []Object) *view {
	v := &view{byKey: map[objectKey]Object{}, byUID: map[types.UID][]Object{}}
	for _, o := range objs {
		if _, err := meta.Accessor(o.Obj); err != nil {
			continue
		}
		v.objs = append(v.objs, o)
	}
	slices.SortFunc(v.objs, func(a, b Object) int {
		if c := strings.Compare(a.GVR.String(), b.GVR.String()); c != 0 {
			return c
		}
		return strings.Compare(describe(a), describe(b))
	})
	for _, o := range v.objs {
		m := metaOf(o)
		v.byKey[objectKey{o.GVR, m.GetNamespace(), m.GetName()}] = o
		v.byUID[m.GetUID()] = append(v.byUID[m.GetUID()], o)
	}
	return v
}

func metaOf(o Object) metav1.Object {
	m, _ := meta.Accessor(o.Obj)
	return m
}

// describe names an object as messages do: kind namespace/name.
func describe(o Object) string {
	m := metaOf(o)
	if m.GetNamespace() == "" {
		return fmt.Sprintf("%s %s", o.GVK.Kind, m.GetName())
	}
	return fmt.Sprintf("%s %s/%s", o.GVK.Kind, m.GetNamespace(), m.GetName())
}

func describeAction(a clienttesting.Action) string {
	name := ""
	switch a := a.(type) {
	case clienttesting.DeleteActionImpl:
		name = a.GetName()
	case clienttesting.UpdateActionImpl:
		if m, err := meta.Accessor(a.GetObject()); err == nil {
			name = m.GetName()
		}
	}
	r := a.GetResource().Resource
	if sub := a.GetSubresource(); sub != "" {
		r += "/" + sub
	}
	switch {
	case a.GetNamespace() != "" && name != "":
		return fmt.Sprintf("%s %s/%s", r, a.GetNamespace(), name)
	case a.GetNamespace() != "":
		return fmt.Sprintf("%s in %s", r, a.GetNamespace())
	}
	return strings.TrimSpace(r + " " + name)
}

// manager is the field manager of the companions' writes: the user agent
// of kube-controller-manager's clients.
const manager = "kube-controller-manager"

// update is an update of o to obj, conditional on o's resourceVersion
// (obj keeps it).
func update(o Object, obj runtime.Object, sub string) clienttesting.Action {
	m := metaOf(o)
	opts := metav1.UpdateOptions{FieldManager: manager}
	if sub != "" {
		return clienttesting.NewUpdateSubresourceActionWithOptions(o.GVR, sub, m.GetNamespace(), obj, opts)
	}
	return clienttesting.NewUpdateActionWithOptions(o.GVR, m.GetNamespace(), obj, opts)
}

func metaAccessor(obj runtime.Object) (metav1.Object, error) {
	if obj == nil {
		return nil, fmt.Errorf("no object")
	}
	return meta.Accessor(obj)
}
