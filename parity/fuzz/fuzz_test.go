package fuzz

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrltest/ctrltest/crd"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// The fuzzer's settings, from the environment (make fuzz sets them).
const (
	// EnvTime is how long the fuzzer runs fresh seeds after its fixed
	// ones, as a Go duration ("90s", "10m"); 0 runs the fixed seeds only.
	EnvTime = "CTRLTEST_FUZZ_TIME"
	// EnvSeed replays the sequences of these seeds only (comma-separated).
	EnvSeed = "CTRLTEST_FUZZ_SEED"
	// EnvKeep keeps only these requests (1-based, comma-separated) of a
	// replayed seed's sequence: a shrunk reproducer.
	EnvKeep = "CTRLTEST_FUZZ_KEEP"
)

// defaultTime is the budget of fresh seeds when EnvTime is unset (CI's
// make parity): TestFuzz's; TestFuzzFieldManaged runs for a third of it.
const defaultTime = 45 * time.Second

// fixedSeeds run on every run, before the fresh ones: 1 to 20, then fresh
// seeds that found a class since fixed in the model or in the fuzzer.
var fixedSeeds = []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	// A custom resource's second delete, with a resourceVersion
	// precondition, removing the foreground finalizer: the server's 409.
	2993103054972546178,
	// A DaemonSet's blind update by a second field manager, which owns
	// the template generation it did not send (TestFuzzFieldManaged).
	3801161105560210507,
	// A dry-run update that would create a Service (create on update),
	// sending no resourceVersion: its answer has none.
	228270510038532357,
	// A DaemonSet's blind update by the manager that created it: a no-op,
	// the creator owning the template generation already.
	1306931124948766532,
	// A /scale patch whose only change on the server is in its manager's
	// managed fields entry (the same managers, other fields): a write
	// that changes managed fields only.
	770099442305237117,
}

// fuzzer runs sequences on the model and the server.
type fuzzer struct {
	t   *testing.T
	ctx context.Context
	// lenient: the sequence being reported is a fresh seed's in CI: logged,
	// not failed (see fuzz).
	lenient bool
	model   *fixture.Fixture
	srvDyn  dynamic.Interface
	srvK8s  kubernetes.Interface
	run     string
	n       int
	// fieldManaged: the model runs with fixture.KubeFieldManaged.
	fieldManaged bool
	// clean counts the sequences with no divergence at all, known or not.
	clean int
	// reported are the classes reported in this run: each is shrunk and
	// shown once.
	reported map[string]int
	// per side: time in requests and their number.
	modelTime, serverTime time.Duration
	modelReqs, serverReqs int
}

// TestFuzz runs the fixed seeds' sequences, then fresh seeds' for the
// budget (EnvTime), on the fixture's default world and on the server, and
// fails on each divergence no known class accepts, with its shortest
// sequence.
func TestFuzz(t *testing.T) { fuzz(t, false, defaultTime) }

// TestFuzzFieldManaged is TestFuzz on a world whose built-in kinds track
// the managed fields of every write (fixture.KubeFieldManaged), for a
// third of the budget: there the managed fields of built-in kinds must be
// the server's.
func TestFuzzFieldManaged(t *testing.T) { fuzz(t, true, defaultTime/3) }

func fuzz(t *testing.T, fieldManaged bool, defaultBudget time.Duration) {
	srv := parity.Shared(t)
	cfg := srv.ClientConfig(nil)
	cfg.QPS, cfg.Burst = 1e6, 1e6
	fz := &fuzzer{t: t, ctx: t.Context(), run: randomHex(), reported: map[string]int{}, fieldManaged: fieldManaged}
	var err error
	if fz.srvDyn, err = dynamic.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if fz.srvK8s, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	opts := []fixture.Option{crd.Files(t, crdFiles...)}
	if fieldManaged {
		opts = append(opts, fixture.WithClientset(fixture.KubeFieldManaged))
	}
	fz.model = fixture.New(t, opts...)
	// A stale resourceVersion of an object that has had one only is "1"
	// (staleRV): the server's revisions start higher, and one write here
	// makes the model's too, so that the first object of a replayed seed
	// is not at revision 1 on the model alone.
	if _, err := fz.model.Kube().CoreV1().ConfigMaps("fz-warmup").Create(t.Context(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "warmup"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	seeds, keep, budget := fixedSeeds, []int(nil), defaultBudget
	if v := os.Getenv(EnvTime); v != "" {
		if budget, err = time.ParseDuration(v); err != nil {
			t.Fatalf("%s=%q: %v", EnvTime, v, err)
		}
		if fieldManaged {
			budget /= 3
		}
	}
	replay := os.Getenv(EnvSeed) != ""
	if replay {
		seeds = nil
		for _, s := range strings.Split(os.Getenv(EnvSeed), ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", EnvSeed, err)
			}
			seeds = append(seeds, n)
		}
		budget = 0
		for _, s := range strings.Split(os.Getenv(EnvKeep), ",") {
			if s = strings.TrimSpace(s); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("%s: %v", EnvKeep, err)
				}
				keep = append(keep, n)
			}
		}
	}
	counts := map[string]int{}
	// Without EnvTime (CI), what fresh seeds find is reported (in the log
	// and the parity report) but does not fail the run: the model still
	// has classes to fix, and CI must not fail at random on them. The
	// fixed seeds always fail on an unknown class; make fuzz (EnvTime) fails
	// on every one.
	lenientFresh := os.Getenv(EnvTime) == ""
	sequences, failed, found := 0, 0, 0
	check := func(seed int64, fresh bool) {
		seq := generate(seed)
		if keep != nil {
			seq = seq.only(keep)
		}
		divs := fz.runSequence(seq, replay)
		sequences++
		if len(divs) == 0 {
			fz.clean++
		}
		unknown := classify(divs, counts)
		if len(unknown) > 0 {
			fz.lenient = fresh && lenientFresh
			if fz.lenient {
				found++
			} else {
				failed++
			}
			fz.report(seq, unknown)
		}
	}
	for _, seed := range seeds {
		check(seed, false)
	}
	seedsLine := fmt.Sprintf("%d fixed seeds (1-20 and %d of fixed classes)", len(fixedSeeds), len(fixedSeeds)-20)
	if replay {
		seedsLine = "replayed seeds " + os.Getenv(EnvSeed)
	}
	if budget > 0 {
		base := freshSeed()
		seedsLine += fmt.Sprintf("; fresh seeds from %d for %v (replay one: make fuzz FUZZSEED=<seed>)", base, budget)
		t.Log(seedsLine)
		deadline := time.Now().Add(budget)
		for seed := base; time.Now().Before(deadline) && len(fz.reported) < 20; seed++ {
			check(seed, true)
		}
	}
	summary := seedsLine + "\n" + fz.summary(sequences, counts)
	t.Logf("\n%s", summary)
	if err := appendReport(t.Name(), summary, fz.classes()); err != nil {
		t.Errorf("fuzz: writing the report: %v", err)
	}
	if failed > 0 {
		t.Errorf("%d of %d sequences diverge in ways no known class accepts, in %d class(es):\n%s", failed, sequences, len(fz.reported), fz.classes())
	}
	if found > 0 {
		t.Logf("NEW: %d fresh sequence(s) diverge in ways no known class accepts (not failing CI; make fuzz FUZZSEED=<seed> replays each, and fails on it):\n%s", found, fz.classes())
	}
}

// appendReport adds the run's summary and its unknown classes to the file
// $CTRLTEST_PARITY_REPORT names, if any: make parity prints it after the
// tests, so that CI shows the seeds it ran.
func appendReport(test, summary, unknown string) error {
	path := os.Getenv(parity.EnvReport)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	text := fmt.Sprintf("=== %s: %s", test, summary)
	if unknown != "" {
		text += "unknown classes:\n" + unknown
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// only keeps the requests at the 1-based positions keep.
func (s sequence) only(keep []int) sequence {
	out := s
	out.ops = nil
	for _, i := range keep {
		if i >= 1 && i <= len(s.ops) {
			out.ops = append(out.ops, s.ops[i-1])
		}
	}
	return out
}

// classify marks each divergence with the known class that accepts it,
// counts them per class, and returns the unknown ones.
//
// A class that leaves the two sides' objects different (taints) accepts
// every later divergence of the object it diverged on too: what follows
// from a known difference is not a new one.
func classify(divs []divergence, counts map[string]int) []divergence {
	var unknown []divergence
	tainted := map[string]string{} // object key -> class
	for i := range divs {
		d := &divs[i]
		for _, k := range knownClasses {
			if k.match(*d) {
				d.Known = k.name
				if k.taints {
					tainted[d.Kind+"/"+d.Op.Name] = k.name
				}
				break
			}
		}
		if d.Known == "" {
			for _, obj := range slices.Sorted(maps.Keys(tainted)) {
				if d.Kind+"/"+d.Op.Name == obj || strings.HasPrefix(d.Field, obj+": ") {
					d.Known = tainted[obj]
					break
				}
			}
		}
		if d.Known == "" && d.Field == "list" {
			d.Known = taintedList(*d, tainted)
		}
		if d.Known == "" {
			unknown = append(unknown, *d)
			counts["(unknown)"]++
		} else {
			counts[divs[i].Known]++
		}
	}
	return unknown
}

// taintedList is the class that accepts a list divergence: the class of
// the first tainted object among the names only one side listed, when
// every such name is tainted ("" otherwise). A tainted object may match
// a selector on one side only.
func taintedList(d divergence, tainted map[string]string) string {
	names := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, n := range strings.Fields(strings.Trim(s, "[]")) {
			out[n] = true
		}
		return out
	}
	m, s := names(d.Model), names(d.Server)
	class := ""
	for _, n := range slices.Sorted(maps.Keys(m)) {
		s[n] = !s[n] // the names on one side only stay true
		if !s[n] {
			delete(s, n)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(s)) {
		c, ok := tainted[d.Kind+"/"+n]
		if !ok {
			return ""
		}
		if class == "" {
			class = c
		}
	}
	return class
}

// runSequence runs seq on both sides, in a namespace of its own on each
// (the same name), and returns every divergence. verbose logs each
// request's observations.
func (fz *fuzzer) runSequence(seq sequence, verbose bool) []divergence {
	fz.n++
	ns := fmt.Sprintf("fz-%s-%d", fz.run, fz.n)
	ctx, cancel := context.WithTimeout(fz.ctx, 2*time.Minute)
	defer cancel()
	if _, err := fz.srvK8s.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		fz.t.Fatalf("fuzz: creating namespace %s on the server: %v", ns, err)
	}
	defer func() {
		_ = fz.srvK8s.CoreV1().Namespaces().Delete(context.WithoutCancel(ctx), ns, metav1.DeleteOptions{})
	}()
	newSide := func(name string, dyn dynamic.Interface, kube kubernetes.Interface) *side {
		return &side{name: name, dyn: dyn, kube: kube, ns: ns, rvs: map[string][]string{}, gen: map[string]string{}, uids: map[string]string{}}
	}
	m := newSide("model", fz.model.Dynamic(), fz.model.Kube())
	s := newSide("server", fz.srvDyn, fz.srvK8s)
	var divs []divergence
	beforeM, beforeS := map[string]objState{}, map[string]objState{}
	for i, o := range seq.ops {
		ms := m.do(ctx, seq, o)
		ss := s.do(ctx, seq, o)
		d := compareStates(i+1, o, seq.res[o.Res], fz.fieldManaged, beforeM, beforeS, ms, ss)
		if verbose {
			mark := ""
			if len(d) > 0 {
				mark = " ≠"
			}
			fz.t.Logf("#%d %s %s%s\n    model:  %s\n    server: %s", i+1, seq.res[o.Res].kind, o, mark, brief(ms), brief(ss))
			for _, x := range d {
				fz.t.Logf("    %s: model %s, server %s", x.Field, x.Model, x.Server)
			}
		}
		divs = append(divs, d...)
		beforeM, beforeS = ms.objects, ss.objects
	}
	fz.modelTime += m.elapsed
	fz.modelReqs += m.requests
	fz.serverTime += s.elapsed
	fz.serverReqs += s.requests
	return divs
}

// brief shows a request's outcome in one line.
func brief(st state) string {
	var objs []string
	for _, k := range slices.Sorted(maps.Keys(st.objects)) {
		o := st.objects[k]
		x := fmt.Sprintf("%s rv=%s gen=%d", k, o.rv, o.generation)
		if o.deleting {
			x += " deleting"
		}
		if o.finalizers != "" {
			x += " finalizers=" + o.finalizers
		}
		objs = append(objs, x)
	}
	out := st.err
	if st.names != nil {
		out += fmt.Sprintf("; list %v", st.names)
	}
	return out + "; " + strings.Join(objs, ", ")
}

// report fails the test with the divergences of seq no class accepts:
// for each class, the shortest sequence that still shows it.
func (fz *fuzzer) report(seq sequence, unknown []divergence) {
	fz.t.Helper()
	for _, d := range unknown {
		c := d.class()
		fz.reported[c]++
		if fz.reported[c] > 1 {
			continue
		}
		keep, shown := fz.shrink(seq, d)
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d: the model and the server diverge (%s)\n", seq.seed, c)
		fmt.Fprintf(&b, "  resources: %s\n", kinds(seq.res))
		fmt.Fprintf(&b, "  shortest sequence (%d of %d requests):\n", len(keep), len(seq.ops))
		w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		for j, i := range keep {
			o := seq.ops[i-1]
			fmt.Fprintf(w, "    %d\t(#%d)\t%s\t%s\n", j+1, i, seq.res[o.Res].kind, o)
		}
		_ = w.Flush()
		fmt.Fprintf(&b, "  divergence: %s\n", shown)
		fmt.Fprintf(&b, "  replay: %s=%d %s=%s go test -run TestFuzz -v ./fuzz\n", EnvSeed, seq.seed, EnvKeep, joinInts(keep))
		if fz.lenient {
			fz.t.Log("NEW (a fresh seed's, not failing CI): " + b.String())
			continue
		}
		fz.t.Error(b.String())
	}
}

// classes lists the unknown classes reported, with their counts.
func (fz *fuzzer) classes() string {
	var b strings.Builder
	for _, c := range slices.Sorted(maps.Keys(fz.reported)) {
		fmt.Fprintf(&b, "  %d\t%s\n", fz.reported[c], c)
	}
	return b.String()
}

// shrink removes requests from seq while a divergence of d's class no
// known class accepts remains; it returns the 1-based positions of the
// requests kept and that divergence.
func (fz *fuzzer) shrink(seq sequence, d divergence) ([]int, divergence) {
	keep := make([]int, d.Index)
	for i := range keep {
		keep[i] = i + 1
	}
	shown := d
	tries := 0
	for i := len(keep) - 2; i >= 0 && tries < 3*len(seq.ops); i-- {
		cand := append(append([]int(nil), keep[:i]...), keep[i+1:]...)
		tries++
		if got, ok := fz.shows(seq.only(cand), d.class()); ok {
			keep, shown = cand, got
			shown.Index = len(cand)
		}
	}
	return keep, shown
}

// shows runs seq and returns a divergence of class no known class accepts.
func (fz *fuzzer) shows(seq sequence, class string) (divergence, bool) {
	divs := fz.runSequence(seq, false)
	for _, d := range classify(divs, map[string]int{}) {
		if d.class() == class {
			return d, true
		}
	}
	return divergence{}, false
}

// summary counts the sequences and requests, each side's rate, and the
// divergences per known class.
func (fz *fuzzer) summary(sequences int, counts map[string]int) string {
	var b strings.Builder
	rate := func(n int, d time.Duration) float64 {
		if d <= 0 {
			return 0
		}
		return float64(n) / d.Seconds()
	}
	mr, sr := rate(fz.modelReqs, fz.modelTime), rate(fz.serverReqs, fz.serverTime)
	fmt.Fprintf(&b, "%d sequences (%d with no divergence, known or not); model: %d requests, %.0f/s; server: %d requests, %.0f/s; the model serves %.0fx the server's rate\n",
		sequences, fz.clean, fz.modelReqs, mr, fz.serverReqs, sr, mr/max(sr, 1e-9))
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  divergences\tclass")
	for _, k := range knownClasses {
		fmt.Fprintf(w, "  %d\t%s: %s\n", counts[k.name], k.name, k.reason)
	}
	fmt.Fprintf(w, "  %d\t(unknown)\n", counts["(unknown)"])
	_ = w.Flush()
	return b.String()
}

func kinds(rs []resource) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.kind)
	}
	return strings.Join(out, ", ")
}

func joinInts(xs []int) string {
	var out []string
	for _, x := range xs {
		out = append(out, strconv.Itoa(x))
	}
	return strings.Join(out, ",")
}

func randomHex() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x", b)
}

// freshSeed is a random positive seed, printed by the test so that a
// failing one can be replayed.
func freshSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:])>>2) + 1000
}
