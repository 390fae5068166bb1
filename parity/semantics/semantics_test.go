package semantics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
	"github.com/ctrltest/ctrltest/parity"
)

// TestSemantics runs every sequence on every resource, on the fixture's
// default world and on the server, and fails on a divergence no Known
// entry accepts, and on a Known entry that accepts none. Run it with -v to
// see every observation of both sides.
func TestSemantics(t *testing.T) {
	srv := parity.Shared(t)
	known := append([]Known(nil), accepted...)
	if err := validateKnown(known); err != nil {
		t.Fatal(err)
	}
	used := make([]int, len(known))
	var all []Divergence
	ran, total := 0, 0
	for _, res := range resources {
		for _, seq := range sequences {
			if !seq.runsOn(res) {
				continue
			}
			total++
			name := res.label() + "/" + seq.name
			t.Run(name, func(t *testing.T) {
				fakes := runSequence(t, res, seq)
				server := runSequence(t, res, seq, adapter.WithServer(srv))
				var touched []string
				if seq.writesFields {
					touched = res.touched()
				}
				divs := compare(name, fakes, server, touched)
				for i, n := range accept(divs, known) {
					used[i] += n
				}
				all = append(all, divs...)
				ran++
				t.Logf("\n%s%s", observationTable(name, fakes, server), divergenceTable(divs))
				if u := unknown(divs); len(u) > 0 {
					t.Errorf("the fakes and the server diverge in %d way(s) no Known entry accepts (-v shows every observation):\n%s", len(u), divergenceTable(u))
				}
			})
		}
	}
	summary := summaryTable(all, known, used)
	t.Logf("every divergence (%d, %d unknown):\n%s\n%s", len(all), len(unknown(all)), divergenceTable(all), summary)
	if err := appendReport(t.Name(), all, summary); err != nil {
		t.Errorf("semantics: writing the report: %v", err)
	}
	if ran < total { // a -run filter, or a sequence that stopped early
		return
	}
	for i, k := range known {
		if used[i] == 0 {
			t.Errorf("%s (%q) accepted no divergence: remove it", k, k.Reason)
		}
	}
}

// runSequence runs seq on res in a fixture of its own (on the server with
// adapter.WithServer), as one sync of the key "default/<sequence>", and
// returns its observations and the stored objects after it.
func runSequence(t *testing.T, res resource, seq sequence, opts ...fixture.Option) run {
	t.Helper()
	f := fixture.New(t, append(options(), opts...)...)
	var r *runner
	sync := func(ctx context.Context, key string) error {
		ns, _, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			return err
		}
		r = &runner{t: t, ctx: ctx, c: res.client(f, ns), res: res}
		seq.run(r)
		return nil
	}
	if res := fixture.Sync(f, sync, "default/"+seq.name); res.Err != nil {
		t.Fatalf("semantics: %s/%s: %v", res.Key, seq.name, res.Err)
	}
	return run{Observations: r.obs, Objects: f.Objects()}
}

// touched returns the paths of the fields the sequences write besides
// metadata.
func (r resource) touched() []string {
	out := []string{strings.Join(r.spec.path, ".")}
	if r.status != nil {
		out = append(out, strings.Join(r.status.path, "."))
	}
	return out
}

func validateKnown(known []Known) error {
	var errs []error
	for _, k := range known {
		if k.Reason == "" {
			errs = append(errs, errors.New(k.String()+": give the reason"))
		}
	}
	return errors.Join(errs...)
}

// appendReport adds the summary and the unknown divergences to the file
// $CTRLTEST_PARITY_REPORT names, if any: make parity prints it after the
// tests.
func appendReport(test string, divs []Divergence, summary string) error {
	path := os.Getenv(parity.EnvReport)
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	text := fmt.Sprintf("=== %s: %d divergence(s), %d unknown (go test -v ./semantics shows every observation and divergence)\n%s",
		test, len(divs), len(unknown(divs)), summary)
	if u := unknown(divs); len(u) > 0 {
		text += "unknown divergences:\n" + divergenceTable(u)
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// TestSequencesOnTheFakes runs every sequence on the fixture's default
// world alone (no server needed; -v shows the observations): each
// sequence records one observation per request on every resource, and a
// first request that is a create (not an apply) succeeds.
func TestSequencesOnTheFakes(t *testing.T) {
	for _, seq := range sequences {
		t.Run(seq.name, func(t *testing.T) {
			want := -1
			for _, res := range resources {
				if !seq.runsOn(res) {
					continue
				}
				got := runSequence(t, res, seq)
				t.Logf("%s/%s on the fakes:\n%s", res.label(), seq.name, observationTable(res.label()+"/"+seq.name, got, got))
				if want == -1 {
					want = len(got.Observations)
				}
				if len(got.Observations) != want {
					t.Errorf("%s/%s: %d observations, want %d (as on the resources before)", res.label(), seq.name, len(got.Observations), want)
				}
				if len(got.Observations) == 0 {
					t.Errorf("%s/%s: no observations", res.label(), seq.name)
				} else if first := got.Observations[0]; strings.HasPrefix(first.Request, "create") && (first.Err != "" || first.Stored != storedCreated) {
					t.Errorf("%s/%s: the first request, a create, did not create: %v", res.label(), seq.name, got.Observations)
				}
			}
		})
	}
}
