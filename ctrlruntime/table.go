package ctrlruntime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
)

// Env is what a reconciler is wired with: a manager's pieces, served by
// one fixture's world.
type Env struct {
	// F is the row's fixture.
	F *fixture.Fixture
	// Client is the manager's client (mgr.GetClient()): it reads from
	// the informers' view (Cached, deep copies) unless the table is
	// Uncached, and writes to the world. On a real API server
	// (adapter.WithServer, parity) it is controller-runtime's own client,
	// made from the fixture's RESTConfig, reading from the server.
	Client client.Client
	// APIReader reads straight from the world (mgr.GetAPIReader()): its
	// reads are recorded requests (Result.All, Row.WantReads).
	APIReader client.Reader
	// Scheme is the fixture's scheme (mgr.GetScheme()).
	Scheme *runtime.Scheme
	// Recorder is the manager's recorder of core/v1 events
	// (mgr.GetEventRecorderFor): its events are the sync's events.
	Recorder record.EventRecorder
	// EventsRecorder is the manager's recorder of the events API
	// (mgr.GetEventRecorder): its events are the sync's events too. It is
	// client-go's events.EventRecorder, which every supported
	// controller-runtime release's recorder.EventRecorder (0.25 and later)
	// or GetEventRecorder result is or embeds; the one NewEnv sets has
	// AnnotatedEventf too.
	EventsRecorder events.EventRecorder
	// Manager is a manager.Manager of these pieces, on which a
	// reconciler's SetupWithManager runs unchanged: Wire connects the
	// watches of the controllers it builds to the fixture's informers;
	// Manager.Watches delivers events to them by hand.
	Manager *Manager

	// cached and direct are the fixture's clients (nil on a real server).
	cached, direct *Client
}

// NewEnv makes the Env of a fixture; opts apply to both clients
// (WithIndex), Cached and UnsafeDisableDeepCopy to Client only.
func NewEnv(f *fixture.Fixture, opts ...Option) *Env {
	f.T().Helper()
	direct := make([]Option, 0, len(opts))
	var s settings
	for _, o := range opts {
		if o == nil {
			continue
		}
		var one settings
		o.apply(&one)
		o.apply(&s)
		if !one.cached && !one.noDeepCp && one.watching == nil {
			direct = append(direct, o)
		}
	}
	env := &Env{
		F:              f,
		Scheme:         f.Scheme(),
		Recorder:       f.Recorder(),
		EventsRecorder: eventsRecorder{f.EventsRecorder()},
	}
	env.Manager = newManager(env)
	if cfg := adapter.RESTConfig(f); cfg != nil {
		c, err := client.New(cfg, client.Options{Scheme: env.Scheme, Mapper: f.RESTMapper()})
		if err != nil {
			f.T().Fatalf("ctrlruntime.NewEnv: a client of the real API server: %v", err)
		}
		env.Client, env.APIReader = c, c
		return env
	}
	env.cached, env.direct = NewClient(f, opts...), NewClient(f, direct...)
	env.Client, env.APIReader = env.cached, env.direct
	return env
}

// eventsRecorder adds AnnotatedEventf to the fixture's events recorder
// (annotations are not part of a fixture event).
type eventsRecorder struct{ events.EventRecorderLogger }

// AnnotatedEventf records an event, as Eventf does.
func (r eventsRecorder) AnnotatedEventf(regarding, related runtime.Object, _ map[string]string, eventtype, reason, action, note string, args ...any) {
	r.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// annotated adds AnnotatedEventf to an events recorder that lacks it.
type annotated struct{ events.EventRecorder }

// AnnotatedEventf records an event, as Eventf does.
func (r annotated) AnnotatedEventf(regarding, related runtime.Object, _ map[string]string, eventtype, reason, action, note string, args ...any) {
	r.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

// Wire adapts a Reconciler to fixture's rows and cases: it is the Wire of
// a fixture.Table[string] or fixture.Cases[string], whose keys are
// requests ("namespace/name", see Key). For each fixture it builds the
// reconciler on an Env whose Client reads from the informers' view (Cached,
// watching the types of the fixture's seeds from the start, as a
// manager's cache watches those of the controller's For, Owns and
// Watches) unless opts hold Uncached; opts apply to the Env's clients as
// NewEnv's do. Each reconcile reports its reconcile.Result as the sync's
// Result.Returned (Row.WantReturned, golden files' "returned:"): "" for
// the zero result, FormatResult's line otherwise. Terminal checks a
// reconcile.TerminalError (Row.WantErr).
//
// When wire sets the reconciler up with env.Manager (SetupWithManager),
// Wire connects the watches of the controllers built on it to the
// fixture's informers: their event handlers (For, Owns, Watches, behind
// their predicates) are called as the fixture delivers the world's
// changes, and the requests they enqueue are keys on the fixture's
// work-queue spy, fixture.Queue[string]. So the stale-cache and event-order
// sweeps judge what re-queues a key. The handlers get the informers'
// objects (the initial list) before Wire returns.
//
//	fixture.Table[string]{
//		Wire: ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler {
//			r := &WebAppReconciler{Client: env.Client, Scheme: env.Scheme}
//			if err := r.SetupWithManager(env.Manager); err != nil {
//				env.F.T().Fatal(err)
//			}
//			return r
//		}),
//		Options: []fixture.Option{WebApps},
//		Rows: []fixture.Row{{
//			Name:         "a new WebApp gets a Deployment",
//			Objects:      []runtime.Object{webapp("web")},
//			Key:          "default/web",
//			WantActions:  []actions.Action{actions.Create(deployment("web"))},
//			WantReturned: "requeue after 10s",
//		}},
//	}.Run(t)
func Wire(wire func(env *Env) reconcile.Reconciler, opts ...Option) func(*fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		f.T().Helper()
		if wire == nil {
			f.T().Fatal("ctrlruntime.Wire: nil wire function")
		}
		var seen []client.Object
		for _, o := range adapter.Seeds(f) {
			if co, ok := o.(client.Object); ok {
				seen = append(seen, co)
			}
		}
		all := append([]Option{Cached(), Watching(seen...)}, opts...)
		env := NewEnv(f, all...)
		r := wire(env)
		if r == nil {
			f.T().Fatal("ctrlruntime.Wire: the wire function returned a nil reconciler")
		}
		if env.Manager.hasControllers() {
			if err := env.Manager.connect(f); err != nil {
				f.T().Fatalf("ctrlruntime.Wire: connecting the watches of the controllers built on env.Manager to the fixture's informers: %v", err)
			}
		}
		return SyncFunc(r, func(_ reconcile.Request, res reconcile.Result) {
			adapter.SetReturned(f, returned(res))
		})
	}
}

// returned is what a reconcile reports as its sync's Result.Returned.
func returned(r reconcile.Result) string {
	if r == (reconcile.Result{}) {
		return ""
	}
	return FormatResult(r)
}

// Key returns the fixture key of a request: "namespace/name", or "name"
// for a cluster-scoped object.
func Key(req reconcile.Request) string {
	if req.Namespace == "" {
		return req.Name
	}
	return req.Namespace + "/" + req.Name
}

// requestOf is Key's inverse.
func requestOf(key string) reconcile.Request {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		ns, name = "", key
	}
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}
}

// SyncFunc adapts a Reconciler to a fixture sync handler, for fixture.Sync,
// fixture.Converge and fixture.Table. Each reconcile's result is passed to
// onResult, when not nil.
func SyncFunc(r reconcile.Reconciler, onResult func(reconcile.Request, reconcile.Result)) fixture.SyncFunc[string] {
	return func(ctx context.Context, key string) error {
		req := requestOf(key)
		res, err := r.Reconcile(ctx, req)
		if onResult != nil {
			onResult(req, res)
		}
		return err
	}
}

// Reconcile runs r once for req in f's world (fixture.Sync: panics and
// hangs fail the test) and returns what it did and its reconcile.Result.
func Reconcile(f *fixture.Fixture, r reconcile.Reconciler, req reconcile.Request) (*fixture.Result, reconcile.Result) {
	f.T().Helper()
	if r == nil {
		f.T().Fatalf("ctrlruntime.Reconcile(%v): nil reconciler", req)
	}
	if err := checkRequest(req); err != nil {
		f.T().Fatalf("ctrlruntime.Reconcile: %v", err)
	}
	var got reconcile.Result
	res := fixture.Sync(f, SyncFunc(r, func(_ reconcile.Request, res reconcile.Result) {
		got = res
		adapter.SetReturned(f, returned(res))
	}), Key(req))
	return res, got
}

func checkRequest(req reconcile.Request) error {
	if req.Name == "" {
		return fmt.Errorf("the request %q has no name: set Request to reconcile.Request{NamespacedName: types.NamespacedName{Namespace: \"default\", Name: \"web\"}}", req.String())
	}
	return nil
}

// Terminal checks that the reconciler returned a reconcile.TerminalError
// (the controller will not retry) whose message contains substr.
func Terminal(substr string) fixture.ErrorCheck {
	return func(err error) error {
		if err == nil {
			return fmt.Errorf("want a terminal error (reconcile.TerminalError) containing %q, got none", substr)
		}
		if !errors.Is(err, reconcile.TerminalError(nil)) {
			return fmt.Errorf("want a terminal error (reconcile.TerminalError), got a retried one: %v", err)
		}
		if !strings.Contains(err.Error(), substr) {
			return fmt.Errorf("want a terminal error containing %q, got: %v", substr, err)
		}
		return nil
	}
}

// FormatResult renders a reconcile.Result on one line: "no requeue",
// "requeue", "requeue after 10s", with its priority when set.
func FormatResult(r reconcile.Result) string {
	//lint:ignore SA1019 reconcilers still return Requeue; the row must show it
	requeue := r.Requeue
	var out string
	switch {
	case r.RequeueAfter > 0:
		out = "requeue after " + r.RequeueAfter.String()
	case requeue:
		out = "requeue"
	default:
		out = "no requeue"
	}
	if requeue && r.RequeueAfter > 0 {
		out += " (Requeue set too)"
	}
	if r.Priority != nil {
		out += fmt.Sprintf(", priority %d", *r.Priority)
	}
	return out
}
