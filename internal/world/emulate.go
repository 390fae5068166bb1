package world

import (
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/internal/clientgo"
	"github.com/ctrltest/ctrltest/internal/trackers"
)

// versionLists makes the clientset's tracker stamp its lists with a
// resourceVersion (trackers.Versioned), on a client-go whose tracker does
// not (1.35), and answers the watches the fake would answer with
// clientgo.Watch; its tracker, serveTracker and the model's store are
// otherwise unchanged.
func (cs *clientset) versionLists() {
	if clientgo.TrackerSendsExisting() {
		return
	}
	// The world's own wrappers keep their type (seedTracker and the
	// reactors made on them look for it): what they wrap is versioned.
	if trackers.WrapInner(cs.tracker, trackers.Versioned) {
		return
	}
	cs.tracker = trackers.Versioned(cs.tracker)
	if cs.serveTracker != nil {
		cs.serveTracker = clienttesting.ObjectReaction(cs.tracker)
		return
	}
	// The fake's own watch reactor would watch without the existing
	// objects; the tracker's watch is the same one, through clientgo.Watch.
	cs.fake.PrependWatchReactor("*", trackers.WatchOf(cs.tracker, cs.table))
}

// unserved answers a request that neither the backend nor serveTracker
// answers: the fake's own tracker does (not handled), but for a list where
// the tracker versions none (versionLists), answered from cs.tracker.
func (cs *clientset) unserved(action clienttesting.Action) (bool, runtime.Object, error) {
	if !trackers.IsVersioned(cs.tracker) || action.GetVerb() != "list" || action.GetSubresource() != "" {
		return false, nil, nil
	}
	return clienttesting.ObjectReaction(cs.tracker)(action)
}
