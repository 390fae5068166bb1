package semantics

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/parity"
)

// Observation is what one request of a sequence did, as the suite compares
// it between the fakes and the server.
type Observation struct {
	// Request says what was sent.
	Request string
	// Err is the error's reason and HTTP code, as "Conflict (409)"; ""
	// when the request succeeded.
	Err string
	// Stored says how the stored object changed, by its resourceVersion
	// before and after the request: created, new resourceVersion, same
	// resourceVersion, deleted, or absent (before and after).
	Stored string
	// Generation is the object's metadata.generation after the request (0
	// when it is absent).
	Generation int64
	// Deleting: the object has a deletionTimestamp after the request.
	Deleting bool
	// Name is set for a create with generateName: the name the object got,
	// "<generateName>*" when made from the generateName, quoted otherwise.
	Name string
	// Spec and Status are the JSON values of the fields the sequences
	// write as the resource's spec and status after the request: "unset"
	// when absent, "-" when the object is, or the resource has no status.
	Spec, Status string
}

// String formats the observation in one cell: "ok; created; generation 1".
func (o Observation) String() string {
	parts := []string{"ok"}
	if o.Err != "" {
		parts[0] = o.Err
	}
	if o.Name != "" {
		parts = append(parts, "name "+o.Name)
	}
	parts = append(parts, o.Stored, fmt.Sprintf("generation %d", o.Generation))
	if o.Deleting {
		parts = append(parts, "deleting")
	}
	if o.Spec != "-" && o.Spec != "" {
		parts = append(parts, "spec "+o.Spec)
	}
	if o.Status != "-" && o.Status != "" {
		parts = append(parts, "status "+o.Status)
	}
	return strings.Join(parts, "; ")
}

// The fields of an observation, as divergences name them; objectsField
// names the stored objects after the sequence.
const (
	fieldError      = "error"
	fieldStored     = "resourceVersion"
	fieldGeneration = "generation"
	fieldDeleting   = "deleting"
	fieldName       = "name"
	fieldSpec       = "spec field"
	fieldStatus     = "status field"
	objectsRequest  = "(stored objects at the end)"
)

// fields lists the compared fields of an observation, in order, with
// their values.
func (o Observation) fields() [][2]string {
	return [][2]string{
		{fieldError, orOK(o.Err)},
		{fieldStored, o.Stored},
		{fieldGeneration, strconv.FormatInt(o.Generation, 10)},
		{fieldDeleting, strconv.FormatBool(o.Deleting)},
		{fieldName, o.Name},
		{fieldSpec, o.Spec},
		{fieldStatus, o.Status},
	}
}

func orOK(err string) string {
	if err == "" {
		return "ok"
	}
	return err
}

// Divergence is one difference between a sequence's run on the fakes and
// on the server.
type Divergence struct {
	// Sequence is "<Kind>/<sequence>", as "Deployment/lifecycle".
	Sequence string
	// Index is the request's position in the sequence, from 1; 0 for the
	// stored objects at the end.
	Index int
	// Request says what was sent (objectsRequest for the stored objects).
	Request string
	// Field is the observation's field (error, resourceVersion,
	// generation, deleting, name, spec field, status field), or, for the stored objects, the object
	// and its field: "Deployment obj: spec.minReadySeconds".
	Field string
	// Fakes and Server are the values on each side.
	Fakes, Server string
	// Known is the reason of the Known entry that accepts it, if any.
	Known string
}

// Known accepts divergences, with the reason. Each of Sequence, Request
// and Field is a pattern: empty or "*" matches anything, a "*" inside
// matches any text ("*/lifecycle", "update*"), anything else matches
// exactly. A Known entry that accepts no divergence of a complete run
// fails the suite: remove it.
type Known struct {
	Sequence, Request, Field string
	Reason                   string
}

func (k Known) matches(d Divergence) bool {
	return match(k.Sequence, d.Sequence) && match(k.Request, d.Request) && match(k.Field, d.Field)
}

func (k Known) String() string {
	return fmt.Sprintf("Known{Sequence: %q, Request: %q, Field: %q}", k.Sequence, k.Request, k.Field)
}

// match reports whether s matches the glob pattern, in which "*" matches
// any text, "/" included.
func match(pattern, s string) bool {
	if pattern == "" || pattern == "*" {
		return true
	}
	if !strings.Contains(pattern, "*") {
		return pattern == s
	}
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$"
	ok, _ := regexp.MatchString(re, s)
	return ok
}

// accept marks each divergence that a Known entry matches with its reason
// (the first that matches), and returns, per Known entry, how many it
// matched.
func accept(divs []Divergence, known []Known) []int {
	used := make([]int, len(known))
	for i := range divs {
		for j, k := range known {
			if k.matches(divs[i]) {
				divs[i].Known = k.Reason
				used[j]++
				break
			}
		}
	}
	return used
}

func unknown(divs []Divergence) []Divergence {
	var out []Divergence
	for _, d := range divs {
		if d.Known == "" {
			out = append(out, d)
		}
	}
	return out
}

// run is what one sequence did on one side.
type run struct {
	Observations []Observation
	// Objects are the stored objects after the sequence (fixture's World:
	// on the server, mapped back to the fixture's namespaces).
	Objects []runtime.Object
}

// compare lists the divergences of a sequence's two runs: each request's
// observation, field by field, then the stored objects. touched are the
// paths (as "spec.minReadySeconds") the sequence writes besides metadata:
// a field the server set that the fakes left empty counts there, and
// elsewhere counts as a server default, not a divergence.
func compare(sequence string, fakes, server run, touched []string) []Divergence {
	var out []Divergence
	n := max(len(fakes.Observations), len(server.Observations))
	for i := range n {
		var f, s Observation
		if i < len(fakes.Observations) {
			f = fakes.Observations[i]
		}
		if i < len(server.Observations) {
			s = server.Observations[i]
		}
		request := f.Request
		if request == "" {
			request = s.Request
		}
		if f.Request != s.Request {
			out = append(out, Divergence{Sequence: sequence, Index: i + 1, Request: request, Field: "request", Fakes: f.Request, Server: s.Request})
			continue
		}
		ff, sf := f.fields(), s.fields()
		for j := range ff {
			if ff[j][1] != sf[j][1] {
				out = append(out, Divergence{Sequence: sequence, Index: i + 1, Request: request, Field: ff[j][0], Fakes: ff[j][1], Server: sf[j][1]})
			}
		}
	}
	return append(out, compareObjects(sequence, fakes.Objects, server.Objects, touched)...)
}

func compareObjects(sequence string, fakes, server []runtime.Object, touched []string) []Divergence {
	fo, so := indexObjects(fakes), indexObjects(server)
	keys := map[string]bool{}
	for k := range fo {
		keys[k] = true
	}
	for k := range so {
		keys[k] = true
	}
	var out []Divergence
	for _, key := range sortedKeys(keys) {
		f, s := fo[key], so[key]
		d := Divergence{Sequence: sequence, Request: objectsRequest, Field: key, Fakes: "present", Server: "present"}
		switch {
		case f == nil:
			d.Fakes = "absent"
			out = append(out, d)
		case s == nil:
			d.Server = "absent"
			out = append(out, d)
		default:
			for _, fd := range parity.DiffFields(f, s) {
				if fd.Defaulted() && !isTouched(fd.Path, touched) {
					continue // a server default
				}
				d.Field = key + ": " + fd.Path
				d.Fakes, d.Server = showValue(fd.Fakes, fd.InFakes), showValue(fd.Server, fd.InServer)
				out = append(out, d)
			}
		}
	}
	return out
}

// isTouched reports whether path is metadata, or one of touched, or in or
// above one of them.
func isTouched(path string, touched []string) bool {
	if path == "metadata" || strings.HasPrefix(path, "metadata.") {
		return true
	}
	for _, t := range touched {
		if path == t || strings.HasPrefix(path, t+".") || strings.HasPrefix(path, t+"[") || strings.HasPrefix(t, path+".") {
			return true
		}
	}
	return false
}

func showValue(v any, present bool) string {
	if !present {
		return "unset"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// indexObjects keys objects by kind and name; a name made from
// generateName counts as "<generateName>*" (numbered when several share
// it).
func indexObjects(objs []runtime.Object) map[string]runtime.Object {
	out := map[string]runtime.Object{}
	for _, o := range objs {
		m, err := meta.Accessor(o)
		if err != nil {
			continue
		}
		typ := reflect.TypeOf(o)
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		name := m.GetName()
		if g := m.GetGenerateName(); g != "" {
			name = generatedName(g, name)
		}
		key := typ.Name() + " " + name
		for i := 2; out[key] != nil; i++ {
			key = fmt.Sprintf("%s %s #%d", typ.Name(), name, i)
		}
		out[key] = o
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// observationTable shows a sequence's observations side by side.
func observationTable(sequence string, fakes, server run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:\n", sequence)
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  #\trequest\tfakes\tserver\t")
	n := max(len(fakes.Observations), len(server.Observations))
	for i := range n {
		var f, s Observation
		if i < len(fakes.Observations) {
			f = fakes.Observations[i]
		}
		if i < len(server.Observations) {
			s = server.Observations[i]
		}
		mark := ""
		if f != s {
			mark = "≠"
		}
		fmt.Fprintf(w, "  %d\t%s\t%s\t%s\t%s\n", i+1, f.Request, f, s, mark)
	}
	_ = w.Flush()
	fmt.Fprintf(&b, "  stored objects: fakes %s; server %s\n", objectNames(fakes.Objects), objectNames(server.Objects))
	return b.String()
}

func objectNames(objs []runtime.Object) string {
	keys := sortedKeys(indexObjects(objs))
	if len(keys) == 0 {
		return "(none)"
	}
	return strings.Join(keys, ", ")
}

// divergenceTable shows divergences one a line: sequence, request index,
// request, field, both values, and the known reason.
func divergenceTable(divs []Divergence) string {
	if len(divs) == 0 {
		return "  (no divergences)\n"
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  sequence\t#\trequest\tfield\tfakes\tserver\tknown")
	for _, d := range divs {
		idx := strconv.Itoa(d.Index)
		if d.Index == 0 {
			idx = "-"
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Sequence, idx, d.Request, d.Field, d.Fakes, d.Server, orDash(d.Known))
	}
	_ = w.Flush()
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// summaryTable counts the divergences each Known entry accepted, in the
// order of known, then the unknown ones.
func summaryTable(divs []Divergence, known []Known, used []int) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  divergences\tknown reason")
	for i, k := range known {
		fmt.Fprintf(w, "  %d\t%s\n", used[i], k.Reason)
	}
	fmt.Fprintf(w, "  %d\t(unknown)\n", len(unknown(divs)))
	_ = w.Flush()
	return b.String()
}
