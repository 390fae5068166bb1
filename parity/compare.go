package parity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
	"github.com/ctrltest/ctrltest/records"
)

// Kind names a way in which client-go's fakes differ from a real API
// server.
type Kind string

// The kinds of divergence a report names.
const (
	// Defaulting: the server set fields that the fakes left empty (its
	// defaults), in an object or in what the controller sent: fields the
	// server fills in on a create of the fakes' object (a dry run tells).
	Defaulting Kind = "defaulting"
	// Validation: the server refused a write as invalid (422).
	Validation Kind = "validation"
	// GenerateName: an object created with generateName got a name from
	// the server, and none (or another) from the fakes.
	GenerateName Kind = "generateName"
	// ResourceVersion: the server refused a write as a conflict (409): its
	// resourceVersion was stale or missing.
	ResourceVersion Kind = "resourceVersion"
	// StatusSplit: the server kept the status out of an update (or the
	// spec out of a status update); the fakes wrote both.
	StatusSplit Kind = "status split"
	// DeleteCollection: the server deleted objects that the fakes'
	// delete-collection left.
	DeleteCollection Kind = "deleteCollection"
	// Finalizers: the server kept an object with finalizers, being
	// deleted, that the fakes removed.
	Finalizers Kind = "finalizers"
	// Writes: the controller's writes differ otherwise.
	Writes Kind = "writes"
	// Error: the sync's error differs.
	Error Kind = "error"
	// Events: the recorded events differ.
	Events Kind = "events"
	// Objects: the resulting objects differ otherwise.
	Objects Kind = "objects"
)

var kinds = []Kind{Defaulting, Validation, GenerateName, ResourceVersion, StatusSplit, DeleteCollection, Finalizers, Writes, Error, Events, Objects}

// Divergence is one difference between a row's run on the fakes and on the
// server.
type Divergence struct {
	Kind Kind
	// What names what differs: a write, an object, the error, the events.
	What string
	// Detail says how, fakes first.
	Detail string
	// Known is the reason given for it, when it is known (see Known).
	Known string
}

// String formats the divergence: its kind and what differs, the reason
// when it is known, then the detail, indented.
func (d Divergence) String() string {
	s := fmt.Sprintf("%s: %s", d.Kind, d.What)
	if d.Known != "" {
		s += " (known: " + d.Known + ")"
	}
	if d.Detail != "" {
		s += "\n" + indent(d.Detail, "    ")
	}
	return s
}

// Known declares a divergence a row is expected to show, with the reason:
// Run does not fail a row on it. An empty Row applies to every row. Run
// fails when a declared divergence did not occur in any row, unless it
// occurs only Sometimes.
type Known struct {
	Row    string
	Kind   Kind
	Reason string
	// Sometimes says the divergence depends on what varies from run to
	// run (the order of a map a controller ranges over, say): a run
	// without it is no reason to remove the declaration.
	Sometimes bool
}

// Side is what a row's sync did on one backend.
type Side struct {
	// Writes are the sync's writes; Answers, on the server side, the
	// server's answer to each.
	Writes  []actions.Action
	Answers []Response
	Events  []records.Event
	Err     error
	// Objects are the objects of every resource seeded or written, after
	// the sync (see fixture.Fixture.World).
	Objects []k8sruntime.Object
	// resources are the objects' resources, by objectName.
	resources map[string]schema.GroupVersionResource
	// reactors: the row's options added reactors (its server side is
	// not run).
	reactors bool
}

// Report compares a row's sync on client-go's fakes with the same sync on
// a real API server.
type Report struct {
	Row           string
	Fakes, Server Side
	Divergences   []Divergence
}

// Unknown returns the divergences that are not known.
func (r *Report) Unknown() []Divergence {
	var out []Divergence
	for _, d := range r.Divergences {
		if d.Known == "" {
			out = append(out, d)
		}
	}
	return out
}

// Kinds returns the kinds of the divergences, sorted, each once.
func (r *Report) Kinds() []Kind {
	seen := map[Kind]bool{}
	var out []Kind
	for _, d := range r.Divergences {
		if !seen[d.Kind] {
			seen[d.Kind] = true
			out = append(out, d.Kind)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// String shows the writes, error and objects of both sides, then each
// divergence.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "parity of row %q: %d divergence(s), %d unknown\n", r.Row, len(r.Divergences), len(r.Unknown()))
	for _, side := range []struct {
		name string
		s    Side
	}{{"fakes ", r.Fakes}, {"server", r.Server}} {
		fmt.Fprintf(&b, "  %s writes:  %s\n", side.name, listWrites(side.s.Writes))
		fmt.Fprintf(&b, "  %s error:   %s\n", side.name, orNone(errText(side.s.Err)))
		var objs []string
		for _, o := range side.s.Objects {
			objs = append(objs, objectName(o))
		}
		fmt.Fprintf(&b, "  %s objects: %s\n", side.name, orNone(strings.Join(objs, ", ")))
	}
	for _, d := range r.Divergences {
		fmt.Fprintf(&b, "  - %s\n", d)
	}
	return b.String()
}

func listWrites(ws []actions.Action) string {
	var out []string
	for _, w := range ws {
		out = append(out, w.String())
	}
	return orNone(strings.Join(out, "; "))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// rowServer is the server as one row's fixture sees it: it keeps the
// server's answers to the row's writes.
type rowServer struct {
	srv     *Server
	mu      sync.Mutex
	answers []Response
}

func (rs *rowServer) ClientConfig(record func(actions.Action)) *rest.Config {
	if record == nil {
		return rs.srv.ClientConfig(nil)
	}
	return Record(rs.srv.Config, nil, record, func(a actions.Action, r Response) {
		if a.IsWrite() {
			rs.mu.Lock()
			rs.answers = append(rs.answers, r)
			rs.mu.Unlock()
		}
	})
}

// NewClientset builds the clientsets the server builds (Server.NewClientset).
func (rs *rowServer) NewClientset(iface reflect.Type, config *rest.Config) (any, error) {
	return rs.srv.NewClientset(iface, config)
}

// RunsControllers and SettleControllers are the server's (see
// Server.StartControllers).
func (rs *rowServer) RunsControllers() bool { return rs.srv.RunsControllers() }

func (rs *rowServer) SettleControllers(ctx context.Context, state func() (string, bool, error)) error {
	return rs.srv.SettleControllers(ctx, state)
}

var _ adapter.ClientsetServer = (*rowServer)(nil)

// Compare runs row of tb twice on t, on client-go's fakes and on srv
// (adapter.WithServer), each with one sync of the row's key, and reports
// how the two differ. The rows' Want fields are not checked here (the
// table's own test does that). A row with reactors (fixture.WithReactor)
// skips t once its fakes side has run: reactors act on the fakes only.
func Compare[K fixture.Key](t testing.TB, srv *Server, tb fixture.Table[K], row fixture.Row) *Report {
	t.Helper()
	if srv == nil {
		t.Fatal("parity.Compare: nil server")
	}
	if tb.Wire == nil {
		t.Fatal("parity.Compare: the table's Wire is nil")
	}
	rs := &rowServer{srv: srv}
	rep := &Report{Row: row.Name, Fakes: runSide(t, tb, row)}
	if rep.Fakes.reactors {
		t.Skipf("parity.Compare(%q): the row has reactors (fixture.WithReactor), which act on client-go's fakes only", row.Name)
	}
	// The server side runs on a test of its own, so that a server that
	// refuses the row's world is reported, not fatal.
	st := &sideTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rep.Server = runSide(st, tb, row, adapter.WithServer(rs))
	}()
	<-done
	if failed := st.failures(); failed != "" {
		kind := Error
		if strings.Contains(failed, "("+string(metav1.StatusReasonInvalid)+")") {
			kind = Validation
		}
		rep.Divergences = []Divergence{{Kind: kind, What: "the row on the server", Detail: failed}}
		return rep
	}
	rs.mu.Lock()
	if n := len(rep.Server.Writes); n <= len(rs.answers) {
		rep.Server.Answers = rs.answers[len(rs.answers)-n:]
	}
	rs.mu.Unlock()
	unordered := actions.IsUnordered(append(slices.Clone(tb.ActionOptions), row.ActionOptions...)...)
	rep.Divergences = diverge(rep.Fakes, rep.Server, unordered, serverFilled(t.Context(), srv))
	return rep
}

// sideTB is the test of a row's server side: it keeps its failures.
type sideTB struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (s *sideTB) Helper() {}

func (s *sideTB) Errorf(format string, args ...any) {
	s.mu.Lock()
	s.msgs = append(s.msgs, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

func (s *sideTB) Error(args ...any) { s.Errorf("%s", fmt.Sprint(args...)) }

func (s *sideTB) Fatalf(format string, args ...any) {
	s.Errorf(format, args...)
	runtime.Goexit()
}

func (s *sideTB) Fatal(args ...any) { s.Fatalf("%s", fmt.Sprint(args...)) }

// A skip on the server side is not the row's: it is reported like a
// failure (SkipNow on the row's test would be called from the wrong
// goroutine).
func (s *sideTB) Skip(args ...any) { s.Fatalf("skipped: %s", fmt.Sprint(args...)) }

func (s *sideTB) Skipf(format string, args ...any) { s.Fatalf("skipped: "+format, args...) }

func (s *sideTB) SkipNow() { s.Fatalf("skipped") }

func (s *sideTB) Fail() { s.Errorf("failed") }

func (s *sideTB) FailNow() { s.Fatalf("failed") }

func (s *sideTB) Failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.msgs) > 0
}

func (s *sideTB) failures() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.msgs, "\n")
}

func runSide[K fixture.Key](t testing.TB, tb fixture.Table[K], row fixture.Row, extra ...fixture.Option) Side {
	t.Helper()
	opts := append(append(append([]fixture.Option(nil), tb.Options...), row.Options...), fixture.WithObjects(row.Objects...))
	f := fixture.New(t, append(opts, extra...)...)
	sync := tb.Wire(f)
	if sync == nil {
		t.Fatal("parity: Wire returned a nil sync function")
	}
	res := fixture.Sync(f, sync, row.Key)
	side := Side{Writes: res.Actions(), Events: res.Events, Err: res.Err, Objects: f.Objects(), resources: map[string]schema.GroupVersionResource{}, reactors: adapter.HasReactors(f)}
	for _, o := range side.Objects {
		side.resources[objectName(o)], _ = adapter.ResourceOf(f, o)
	}
	return side
}

// Run compares every row of tb (see Compare), each in a subtest that logs
// its report and fails on a divergence known does not list. It fails too
// when a known divergence occurs in no row (remove it), unless it is known
// to occur only Sometimes. Rows with reactors are skipped (see Compare);
// the known divergences of a skipped row are not judged.
func Run[K fixture.Key](t *testing.T, srv *Server, tb fixture.Table[K], known ...Known) {
	t.Helper()
	if err := validateKnown(tb.Rows, known); err != nil {
		t.Fatal(err)
	}
	used := make([]bool, len(known))
	complete := true
	skipped := map[string]bool{}
	for _, row := range tb.Rows {
		ok := t.Run(row.Name, func(t *testing.T) {
			defer func() { skipped[row.Name] = t.Skipped() }()
			rep := Compare(t, srv, tb, row)
			for i := range rep.Divergences {
				d := &rep.Divergences[i]
				for j, k := range known {
					if k.Kind == d.Kind && (k.Row == "" || k.Row == row.Name) {
						d.Known, used[j] = k.Reason, true
						break
					}
				}
			}
			t.Log("\n" + rep.String())
			if err := appendReport(t.Name(), rep); err != nil {
				t.Errorf("parity: writing the report: %v", err)
			}
			if u := rep.Unknown(); len(u) > 0 {
				t.Errorf("the fakes and the server diverge in %d way(s) not listed as known (parity.Known):\n%s", len(u), rep)
			}
		})
		complete = complete && ok
	}
	if !complete {
		return
	}
	for i, k := range known {
		if k.Row != "" && skipped[k.Row] {
			used[i] = true // not judged
		}
	}
	for _, msg := range unusedKnown(known, used) {
		t.Error(msg)
	}
}

// unusedKnown names the declarations of known that no row used, but those
// that occur only sometimes.
func unusedKnown(known []Known, used []bool) []string {
	var out []string
	for i, k := range known {
		if !used[i] && !k.Sometimes {
			out = append(out, fmt.Sprintf("parity.Known{Row: %q, Kind: %q} did not occur: remove it (or, if it occurs in some runs only, set Sometimes)", k.Row, k.Kind))
		}
	}
	return out
}

// appendReport adds a row's report to the file $CTRLTEST_PARITY_REPORT
// names, if any: make parity prints it after the tests.
func appendReport(test string, rep *Report) error {
	path := os.Getenv(EnvReport)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString("=== " + test + "\n" + rep.String())
	return errors.Join(err, f.Close())
}

func validateKnown(rows []fixture.Row, known []Known) error {
	names := map[string]bool{}
	for _, row := range rows {
		names[row.Name] = true
	}
	for _, k := range known {
		switch {
		case !validKind(k.Kind):
			return fmt.Errorf("parity.Known{Row: %q, Kind: %q}: unknown kind; use one of %v", k.Row, k.Kind, kinds)
		case k.Row != "" && !names[k.Row]:
			return fmt.Errorf("parity.Known{Row: %q, Kind: %q}: the table has no such row", k.Row, k.Kind)
		case k.Reason == "":
			return fmt.Errorf("parity.Known{Row: %q, Kind: %q}: give the reason", k.Row, k.Kind)
		}
	}
	return nil
}

func validKind(k Kind) bool {
	for _, v := range kinds {
		if v == k {
			return true
		}
	}
	return false
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
