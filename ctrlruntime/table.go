package ctrlruntime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/golden"
)

// Env is what a reconciler is wired with: a manager's pieces, served by
// one fixture's world.
type Env struct {
	// F is the row's fixture.
	F *fixture.Fixture
	// Client is the manager's client (mgr.GetClient()): it reads from
	// the informers' view (Cached, deep copies) unless the table is
	// Uncached, and writes to the world. On a real API server
	// (fixture.WithServer, parity) it is controller-runtime's own client,
	// made from the fixture's RESTConfig, reading from the server.
	Client client.Client
	// APIReader reads straight from the world (mgr.GetAPIReader()): its
	// reads are recorded requests (Result.Reads, Row.WantReads).
	APIReader client.Reader
	// Scheme is the fixture's scheme (mgr.GetScheme()).
	Scheme *runtime.Scheme
	// Recorder is the manager's recorder of core/v1 events
	// (mgr.GetEventRecorderFor): its events are the sync's events.
	Recorder record.EventRecorder
	// EventsRecorder is the manager's recorder of the events API
	// (mgr.GetEventRecorder): its events are the sync's events too.
	EventsRecorder recorder.EventRecorder

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
	if cfg := f.RESTConfig(); cfg != nil {
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

var _ recorder.EventRecorder = eventsRecorder{}

// Table is a table of reconcile scenarios for one controller-runtime
// Reconciler. Run runs each row in its own subtest, on its own fixture,
// with fixture.Table's checks: golden files, the world-judged idempotency
// and convergence check, the fault sweep, the cache-mutation check.
type Table struct {
	// Wire builds the reconciler on the row's environment.
	Wire func(env *Env) reconcile.Reconciler
	// Options apply to every row's fixture, before the row's own
	// (fixture.WithTypes for a kubebuilder API, fixture.WithClientset).
	Options []fixture.Option
	// ClientOptions apply to the environment's clients (WithIndex,
	// UnsafeDisableDeepCopy).
	ClientOptions []Option
	// Uncached makes Env.Client read straight from the world, so its
	// reads are recorded requests (WantReads); by default it reads from
	// the informers' view, as a manager's client does.
	Uncached bool
	// ActionOptions apply to every row's comparison of actions.
	ActionOptions []actions.Option
	// Parallel runs the rows in parallel (t.Parallel).
	Parallel bool
	// Golden checks every row against its golden file.
	Golden bool
	// GoldenDir, when set, holds the golden files instead of testdata/.
	GoldenDir string
	// GoldenOptions apply to every row's golden rendering.
	GoldenOptions []golden.Option
	// Sweep runs a fault sweep for every row.
	Sweep bool
	// SkipIdempotency, StrictIdempotency and SkipCacheMutationCheck are
	// fixture.Table's.
	SkipIdempotency, StrictIdempotency, SkipCacheMutationCheck bool
	// Rows are the scenarios.
	Rows []Row
}

// Row is one scenario: the world, the request to reconcile, and what the
// reconcile must do. Every Want field is exact, as in fixture.Row: the
// zero WantResult expects no requeue, a nil WantErr no error, a nil
// WantActions no write (with Golden, the golden file stands for the
// writes, events and error; WantResult is always checked).
type Row struct {
	// Name names the subtest.
	Name string
	// Objects are the world (fixture.WithObjects).
	Objects []runtime.Object
	// Request is the request to reconcile. It must name a seeded object
	// unless AbsentKey says otherwise (see fixture.Row.AbsentKey).
	Request reconcile.Request
	// AbsentKey says that the request names no seeded object on purpose
	// (the reconcile of a deleted object).
	AbsentKey bool
	// Options are this row's fixture options.
	Options []fixture.Option
	// Reactors are prepended, in order, before the reconcile.
	Reactors []fixture.Reactor

	// WantResult is the expected reconcile.Result.
	WantResult reconcile.Result
	// WantErr checks the returned error (see Terminal for
	// reconcile.TerminalError); nil expects none.
	WantErr fixture.ErrorCheck
	// WantActions are the expected writes.
	WantActions []actions.Action
	// WantReads, when set, are the expected recorded reads.
	WantReads []actions.Action
	// ActionOptions loosen this row's comparison of actions.
	ActionOptions []actions.Option
	// WantEvents are the expected events.
	WantEvents []fixture.Event
	// WantObjects, when set, drives the world to convergence and compares
	// the final objects (fixture.Row.WantObjects).
	WantObjects []runtime.Object
	// MaxSteps bounds the idempotency check and convergence.
	MaxSteps int
	// Golden compares the result with the row's golden file.
	Golden bool
	// GoldenOptions apply to this row's golden rendering.
	GoldenOptions []golden.Option
	// SkipIdempotency, StrictIdempotency and SkipCacheMutationCheck are
	// fixture.Row's.
	SkipIdempotency, StrictIdempotency, SkipCacheMutationCheck bool
	// Sweep runs a fault sweep for this row; HandlesFault declares the
	// faults the reconciler handles on purpose.
	Sweep        bool
	HandlesFault func(write actions.Action, err error) bool
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
		f.SetReturned(FormatResult(res))
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

// Run runs every row as a subtest of t.
func (tb Table) Run(t *testing.T) {
	t.Helper()
	if err := tb.validate(); err != nil {
		t.Fatal(err)
	}
	for _, row := range tb.Rows {
		t.Run(row.Name, func(t *testing.T) {
			t.Helper()
			if tb.Parallel {
				t.Parallel()
			}
			tb.RunRow(t, row)
		})
	}
}

func (tb Table) validate() error {
	if tb.Wire == nil {
		return errors.New("ctrlruntime.Table: Wire is nil")
	}
	seen := map[string]bool{}
	for i, row := range tb.Rows {
		switch {
		case row.Name == "":
			return fmt.Errorf("ctrlruntime.Table: row %d has no name", i)
		case seen[row.Name]:
			return fmt.Errorf("ctrlruntime.Table: two rows are named %q", row.Name)
		}
		seen[row.Name] = true
		if err := checkRequest(row.Request); err != nil {
			return fmt.Errorf("ctrlruntime.Table: row %d (%q): %v", i, row.Name, err)
		}
	}
	return nil
}

// fixtureTable is the fixture.Table of one row: its Wire wires the
// reconciler and notes the reconcile results of the row's own fixture
// (not those of the fault sweep's).
func (tb Table) fixtureTable(row Row, results *[]reconcile.Result) fixture.Table[string] {
	var mu sync.Mutex
	var first *fixture.Fixture
	opts := append([]Option(nil), tb.ClientOptions...)
	if !tb.Uncached {
		opts = append([]Option{Cached()}, opts...)
	}
	return fixture.Table[string]{
		Wire: func(f *fixture.Fixture) fixture.SyncFunc[string] {
			f.T().Helper()
			var seen []client.Object
			for _, o := range row.Objects {
				if co, ok := o.(client.Object); ok {
					seen = append(seen, co)
				}
			}
			r := tb.Wire(NewEnv(f, append(append([]Option(nil), opts...), Watching(seen...))...))
			if r == nil {
				f.T().Fatal("ctrlruntime.Table: Wire returned a nil reconciler")
			}
			mu.Lock()
			if first == nil {
				first = f
			}
			mine := first == f
			mu.Unlock()
			return SyncFunc(r, func(_ reconcile.Request, res reconcile.Result) {
				f.SetReturned(FormatResult(res))
				if mine {
					mu.Lock()
					*results = append(*results, res)
					mu.Unlock()
				}
			})
		},
		Options:                tb.Options,
		ActionOptions:          tb.ActionOptions,
		Golden:                 tb.Golden,
		GoldenDir:              tb.GoldenDir,
		GoldenOptions:          tb.GoldenOptions,
		Sweep:                  tb.Sweep,
		SkipIdempotency:        tb.SkipIdempotency,
		StrictIdempotency:      tb.StrictIdempotency,
		SkipCacheMutationCheck: tb.SkipCacheMutationCheck,
	}
}

// FixtureTable returns the table as a fixture.Table, for what runs
// fixture tables (parity.Run runs its rows on client-go's fakes and on a
// real API server, where Env.Client is controller-runtime's own client).
// Requests become keys; WantResult has no counterpart there (assert it
// with Run).
func (tb Table) FixtureTable() fixture.Table[string] {
	var results []reconcile.Result
	ft := tb.fixtureTable(Row{}, &results)
	for _, r := range tb.Rows {
		ft.Rows = append(ft.Rows, r.fixtureRow())
	}
	return ft
}

func (row Row) fixtureRow() fixture.Row {
	return fixture.Row{
		Name: row.Name, Objects: row.Objects, Key: Key(row.Request), AbsentKey: row.AbsentKey, Options: row.Options, Reactors: row.Reactors,
		WantActions: row.WantActions, WantReads: row.WantReads, ActionOptions: row.ActionOptions,
		WantEvents: row.WantEvents, WantErr: row.WantErr, Golden: row.Golden, GoldenOptions: row.GoldenOptions,
		SkipIdempotency: row.SkipIdempotency, StrictIdempotency: row.StrictIdempotency,
		SkipCacheMutationCheck: row.SkipCacheMutationCheck, WantObjects: row.WantObjects, MaxSteps: row.MaxSteps,
		Sweep: row.Sweep, HandlesFault: row.HandlesFault,
	}
}

// RunRow runs one row on t and returns what its reconcile did and the
// reconcile.Result it returned.
func (tb Table) RunRow(t testing.TB, row Row) (*fixture.Result, reconcile.Result) {
	t.Helper()
	if err := tb.validate(); err != nil {
		t.Fatal(err)
	}
	if err := checkRequest(row.Request); err != nil {
		t.Fatalf("ctrlruntime.Table: row %q: %v", row.Name, err)
	}
	var results []reconcile.Result
	res := tb.fixtureTable(row, &results).RunRow(t, row.fixtureRow())
	if len(results) == 0 {
		t.Fatalf("row %q: the reconciler never returned", row.Name)
	}
	got := results[0]
	if !cmp.Equal(row.WantResult, got) {
		t.Errorf("row %q: reconcile %s: result mismatch:\n  want %s\n   got %s\n(set WantResult on the row)", row.Name, Key(row.Request), FormatResult(row.WantResult), FormatResult(got))
	}
	if apierrors.IsNotFound(res.Err) && row.WantErr == nil && !names(row.Objects, row.Request) {
		t.Errorf("row %q: hint: %s is not among the row's Objects. Add it to Objects, or, if the row tests a deleted object, have the reconciler ignore NotFound (client.IgnoreNotFound(err)), as controller-runtime reconcilers must", row.Name, Key(row.Request))
	}
	return res, got
}

// names reports whether objs hold an object named by req.
func names(objs []runtime.Object, req reconcile.Request) bool {
	for _, o := range objs {
		if m, err := meta.Accessor(o); err == nil && m.GetName() == req.Name && m.GetNamespace() == req.Namespace {
			return true
		}
	}
	return false
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
