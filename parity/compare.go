package parity

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// Kind names a way in which client-go's fakes differ from a real API
// server.
type Kind string

// The kinds of divergence a report names.
const (
	// Defaulting: the server set fields that the fakes left empty (its
	// defaults), in an object or in what the controller sent.
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
// Run does not fail a row on it. An empty Row applies to every row.
type Known struct {
	Row    string
	Kind   Kind
	Reason string
}

// Side is what a row's sync did on one backend.
type Side struct {
	// Writes are the sync's writes; Answers, on the server side, the
	// server's answer to each.
	Writes  []actions.Action
	Answers []Response
	Events  []fixture.Event
	Err     error
	// Objects are the objects of every resource seeded or written, after
	// the sync (see fixture.Fixture.World).
	Objects []k8sruntime.Object
	// resources are the objects' resources, by objectName.
	resources map[string]schema.GroupVersionResource
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

// Compare runs row of tb twice on t, on client-go's fakes and on srv
// (fixture.WithServer), each with one sync of the row's key, and reports
// how the two differ. The rows' Want fields are not checked here (the
// table's own test does that). A row with reactors fails t: reactors act on
// the fakes only.
func Compare[K fixture.Key](t testing.TB, srv *Server, tb fixture.Table[K], row fixture.Row) *Report {
	t.Helper()
	if srv == nil {
		t.Fatal("parity.Compare: nil server")
	}
	if tb.Wire == nil {
		t.Fatal("parity.Compare: the table's Wire is nil")
	}
	if len(row.Reactors) > 0 {
		t.Fatalf("parity.Compare(%q): the row has reactors, which act on client-go's fakes only", row.Name)
	}
	rs := &rowServer{srv: srv}
	rep := &Report{Row: row.Name, Fakes: runSide(t, tb, row)}
	// The server side runs on a test of its own, so that a server that
	// refuses the row's world is reported, not fatal.
	st := &sideTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rep.Server = runSide(st, tb, row, fixture.WithServer(rs))
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
	rep.Divergences = diverge(rep.Fakes, rep.Server)
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
	side := Side{Writes: res.Actions(), Events: res.Events, Err: res.Err, Objects: f.World(), resources: map[string]schema.GroupVersionResource{}}
	for _, o := range side.Objects {
		side.resources[objectName(o)], _ = f.ResourceOf(o)
	}
	return side
}

// Run compares every row of tb (see Compare), each in a subtest that logs
// its report and fails on a divergence known does not list. It fails too
// when a known divergence occurs in no row: remove it. Rows with reactors
// are skipped.
func Run[K fixture.Key](t *testing.T, srv *Server, tb fixture.Table[K], known ...Known) {
	t.Helper()
	if err := validateKnown(tb.Rows, known); err != nil {
		t.Fatal(err)
	}
	used := make([]bool, len(known))
	complete := true
	for _, row := range tb.Rows {
		ok := t.Run(row.Name, func(t *testing.T) {
			if len(row.Reactors) > 0 {
				t.Skip("the row has reactors, which act on client-go's fakes only")
			}
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
		if !used[i] {
			t.Errorf("parity.Known{Row: %q, Kind: %q} did not occur: remove it", k.Row, k.Kind)
		}
	}
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

// diverge names every difference between the two sides.
func diverge(fakes, server Side) []Divergence {
	var out []Divergence
	refused := false
	for i, ans := range server.Answers {
		w := server.Writes[i]
		switch {
		case ans.Code == 422:
			out = append(out, Divergence{Kind: Validation, What: "write " + w.String(), Detail: "the server refused it: " + ans.Message})
		case ans.Code == 409 && w.Verb != actions.VerbCreate:
			out = append(out, Divergence{Kind: ResourceVersion, What: "write " + w.String(), Detail: "the server refused it: " + ans.Message})
		case ans.Code == 404 && w.Subresource == "status":
			out = append(out, Divergence{Kind: StatusSplit, What: "write " + w.String(), Detail: "the server has no status subresource for it: " + ans.Message})
		default:
			continue
		}
		refused = true
	}
	if refused && errText(fakes.Err) == errText(server.Err) {
		out, refused = nil, false // the fakes refused the same writes (fidelity)
	}
	out = append(out, divergeWrites(fakes.Writes, server.Writes)...)
	if errText(fakes.Err) != errText(server.Err) && !refused {
		out = append(out, Divergence{Kind: Error, What: "the sync's error", Detail: fmt.Sprintf("fakes:  %s\nserver: %s", orNone(errText(fakes.Err)), orNone(errText(server.Err)))})
	}
	if d := cmp.Diff(fakes.Events, server.Events); d != "" {
		out = append(out, Divergence{Kind: Events, What: "the recorded events", Detail: "(-fakes +server):\n" + d})
	}
	return append(out, divergeObjects(fakes, server)...)
}

func divergeWrites(fakes, server []actions.Action) []Divergence {
	same := len(fakes) == len(server)
	for i := 0; same && i < len(fakes); i++ {
		f, s := fakes[i], server[i]
		same = f.Verb == s.Verb && f.Resource == s.Resource && f.Subresource == s.Subresource && f.Namespace == s.Namespace && f.Name == s.Name
	}
	if !same {
		return []Divergence{{Kind: Writes, What: "the writes", Detail: fmt.Sprintf("fakes:  %s\nserver: %s", listWrites(fakes), listWrites(server))}}
	}
	var out []Divergence
	for i, f := range fakes {
		s := server[i]
		what := fmt.Sprintf("write %d (%s)", i+1, f)
		if !bytes.Equal(f.Patch, s.Patch) || f.PatchType != s.PatchType {
			out = append(out, Divergence{Kind: Writes, What: what, Detail: fmt.Sprintf("fakes:  %s\nserver: %s", f.Patch, s.Patch)})
		}
		if f.Object == nil || s.Object == nil {
			continue
		}
		diffs := diffObjects(f.Object, s.Object)
		var defaulted, other []fieldDiff
		for _, d := range diffs {
			if d.defaulted() {
				defaulted = append(defaulted, d)
			} else {
				other = append(other, d)
			}
		}
		if len(defaulted) > 0 {
			out = append(out, Divergence{Kind: Defaulting, What: what, Detail: "what the controller sent holds the server's defaults:\n" + describeDiffs(defaulted)})
		}
		if len(other) > 0 {
			out = append(out, Divergence{Kind: Writes, What: what, Detail: describeDiffs(other)})
		}
	}
	return out
}

// divergeObjects compares the objects the sides hold after the sync.
func divergeObjects(fakes, server Side) []Divergence {
	fo, so := index(fakes.Objects), index(server.Objects)
	keys := map[string]bool{}
	for k := range fo {
		keys[k] = true
	}
	for k := range so {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var out []Divergence
	for _, key := range sorted {
		f, s := fo[key], so[key]
		switch {
		case s == nil:
			fm, _ := meta.Accessor(f)
			d := Divergence{Kind: Objects, What: key, Detail: "exists on the fakes only"}
			switch {
			case fm.GetGenerateName() != "" && !strings.HasPrefix(fm.GetName(), fm.GetGenerateName()):
				d.Kind, d.Detail = GenerateName, fmt.Sprintf("the fakes named an object created with generateName %q: %q", fm.GetGenerateName(), fm.GetName())
			case hasDeleteCollection(fakes.Writes, fm.GetNamespace()):
				d.Kind, d.Detail = DeleteCollection, "the server's delete-collection deleted it; the fakes' left it"
			}
			out = append(out, d)
		case f == nil:
			sm, _ := meta.Accessor(s)
			d := Divergence{Kind: Objects, What: key, Detail: "exists on the server only"}
			switch {
			case sm.GetDeletionTimestamp() != nil:
				d.Kind, d.Detail = Finalizers, fmt.Sprintf("the server keeps it, being deleted, until its finalizers %v are removed; the fakes deleted it", sm.GetFinalizers())
			case sm.GetGenerateName() != "":
				d.Kind, d.Detail = GenerateName, fmt.Sprintf("the server named it %q (generateName %q); the fakes did not", sm.GetName(), sm.GetGenerateName())
			}
			out = append(out, d)
		default:
			out = append(out, classifyObject(key, fakes.resources[key], f, s, fakes.Writes)...)
		}
	}
	return out
}

// classifyObject names the differences of an object both sides hold.
func classifyObject(key string, gvr schema.GroupVersionResource, f, s k8sruntime.Object, writes []actions.Action) []Divergence {
	fm, _ := meta.Accessor(f)
	statusWrite, plainWrite := false, false
	for _, w := range writes {
		if w.Resource == gvr && w.Namespace == fm.GetNamespace() && w.Name == fm.GetName() && w.Verb != actions.VerbCreate {
			if w.Subresource == "status" {
				statusWrite = true
			} else if w.Subresource == "" {
				plainWrite = true
			}
		}
	}
	byKind := map[Kind][]fieldDiff{}
	for _, d := range diffObjects(f, s) {
		underStatus := d.path == "status" || strings.HasPrefix(d.path, "status.")
		underMeta := strings.HasPrefix(d.path, "metadata.")
		switch {
		case d.path == "metadata.deletionTimestamp" && d.inSrv:
			byKind[Finalizers] = append(byKind[Finalizers], d)
		case d.defaulted() && !underMeta: // the server defaults no metadata
			byKind[Defaulting] = append(byKind[Defaulting], d)
		case underStatus && plainWrite || !underStatus && !underMeta && statusWrite:
			byKind[StatusSplit] = append(byKind[StatusSplit], d)
		default:
			byKind[Objects] = append(byKind[Objects], d)
		}
	}
	var out []Divergence
	for _, k := range kinds {
		if ds := byKind[k]; len(ds) > 0 {
			out = append(out, Divergence{Kind: k, What: key, Detail: describeDiffs(ds)})
		}
	}
	return out
}

func hasDeleteCollection(writes []actions.Action, ns string) bool {
	for _, w := range writes {
		if w.Verb == actions.VerbDeleteCollection && w.Namespace == ns {
			return true
		}
	}
	return false
}

// index keys objects by type, namespace and name; a name made from
// generateName counts as the generateName, as the suffixes differ.
func index(objs []k8sruntime.Object) map[string]k8sruntime.Object {
	out := map[string]k8sruntime.Object{}
	for _, o := range objs {
		out[objectName(o)] = o
	}
	return out
}

func objectName(o k8sruntime.Object) string {
	m, err := meta.Accessor(o)
	if err != nil {
		return fmt.Sprintf("%T", o)
	}
	name := m.GetName()
	if g := m.GetGenerateName(); g != "" && strings.HasPrefix(name, g) && len(name) > len(g) {
		name = g + "*"
	}
	typ := reflect.TypeOf(o)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	key := strings.ToLower(typ.Name()) + " "
	if m.GetNamespace() != "" {
		key += m.GetNamespace() + "/"
	}
	return key + name
}

// fieldDiff is one field that differs.
type fieldDiff struct {
	path           string
	fakes, server  any
	inFakes, inSrv bool
}

// defaulted reports whether the server set a field the fakes left empty.
func (d fieldDiff) defaulted() bool { return isZero(d.fakes) && !isZero(d.server) }

func describeDiffs(ds []fieldDiff) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s: fakes %s, server %s\n", d.path, show(d.fakes, d.inFakes), show(d.server, d.inSrv))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func show(v any, present bool) string {
	if !present {
		return "unset"
	}
	return fmt.Sprintf("%#v", v)
}

// diffObjects lists the fields in which two objects differ, after removing
// what is expected to differ (resourceVersion, uid, timestamps, managed
// fields; a deletion timestamp counts only as present or not).
func diffObjects(f, s k8sruntime.Object) []fieldDiff {
	fu, err1 := normalized(f)
	su, err2 := normalized(s)
	if err1 != nil || err2 != nil {
		if d := cmp.Diff(f, s); d != "" {
			return []fieldDiff{{path: "(object)", fakes: d}}
		}
		return nil
	}
	var out []fieldDiff
	diffValues("", fu, su, true, true, &out)
	return out
}

var someTime = metav1.Unix(0, 0)

func normalized(o k8sruntime.Object) (map[string]any, error) {
	o = o.DeepCopyObject()
	actions.NormalizeVolatile(o)
	if m, err := meta.Accessor(o); err == nil {
		if m.GetDeletionTimestamp() != nil {
			m.SetDeletionTimestamp(&someTime)
		}
		m.SetDeletionGracePeriodSeconds(nil)
		if g := m.GetGenerateName(); g != "" && strings.HasPrefix(m.GetName(), g) {
			m.SetName(g + "*")
		}
	}
	return k8sruntime.DefaultUnstructuredConverter.ToUnstructured(o)
}

func diffValues(path string, f, s any, inF, inS bool, out *[]fieldDiff) {
	if isZero(f) && isZero(s) {
		return
	}
	fm, fok := f.(map[string]any)
	sm, sok := s.(map[string]any)
	if fok && sok {
		keys := map[string]bool{}
		for k := range fm {
			keys[k] = true
		}
		for k := range sm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			fv, fin := fm[k]
			sv, sin := sm[k]
			diffValues(join(path, k), fv, sv, fin, sin, out)
		}
		return
	}
	fl, fok := f.([]any)
	sl, sok := s.([]any)
	if fok && sok && len(fl) == len(sl) {
		for i := range fl {
			diffValues(fmt.Sprintf("%s[%d]", path, i), fl[i], sl[i], true, true, out)
		}
		return
	}
	if !reflect.DeepEqual(f, s) {
		*out = append(*out, fieldDiff{path: path, fakes: f, server: s, inFakes: inF && f != nil, inSrv: inS && s != nil})
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// isZero reports whether v is absent or empty: nil, "", 0, false, or a
// map or list of nothing but such values.
func isZero(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	case map[string]any:
		for _, x := range v {
			if !isZero(x) {
				return false
			}
		}
		return true
	case []any:
		return len(v) == 0
	}
	return false
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
