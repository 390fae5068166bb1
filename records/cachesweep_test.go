package records

import (
	"strings"
	"testing"
)

func TestCacheReportString(t *testing.T) {
	lost := Damage{Kind: "lost update", Step: 1, Text: "deployments default/web lost the annotation", Key: "default/web",
		Writes: []string{"update apps/v1 deployments default/web"}, Hint: "write with the resourceVersion the cache gave"}
	r := &CacheReport{Key: "default/web", Lags: []LagOutcome{
		{Lag: "own-writes", Skipped: "the first sync changed nothing"},
		{Lag: "other-writer", What: "another writer added the annotation", Syncs: 2, Settled: true, Damage: []Damage{lost, lost}},
		{Lag: "not-in-cache", What: "sync 1 ran before the informers had it", Syncs: 11, Unjudged: "recovery is not judged: no queue"},
	}}
	if got := r.Damaged(); len(got) != 1 || got[0].Lag != "other-writer" {
		t.Errorf("Damaged() = %+v, want the other-writer lag only", got)
	}
	want := `stale-cache sweep of sync "default/web": 2 lag(s), 1 damaged
  own-writes: not applicable: the first sync changed nothing
  other-writer: another writer added the annotation
    LOST UPDATE after sync 1: deployments default/web lost the annotation
      sync 1 ("default/web") wrote:
        update apps/v1 deployments default/web
    LOST UPDATE after sync 1: deployments default/web lost the annotation
      sync 1 ("default/web") wrote:
        update apps/v1 deployments default/web
    DAMAGED: settled after 2 sync(s)
  not-in-cache: sync 1 ran before the informers had it
    ok: did not settle within 11 sync(s)
    recovery is not judged: no queue
lost update: write with the resourceVersion the cache gave
`
	if got := r.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if strings.Count(r.String(), "write with the resourceVersion") != 1 {
		t.Error("a kind's hint is printed more than once")
	}
}
