package delivery

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The informers lag the stored world when some of its changes reach them
// later than usual. fixture's stale-cache sweep makes the lags a cluster
// has (a watch event that arrives after the next sync started) with two
// switches:
//
//   - Hold: while held, Refresh delivers nothing; the changes of the world
//     (and the objects written that no recorded change covers) wait, in
//     order, for the first Refresh after Release. Informers asked for
//     meanwhile are still filled from a list of the world as it is: a
//     reflector's list is fresh;
//   - Hide: an object leaves the caches of the informers of its resource,
//     silently (no handler is told), and comes back as an add at the next
//     Refresh: an object created in the world whose add event has not
//     arrived.

// Hold keeps the world's changes from the informers until Release.
func (f *Feeds) Hold() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = true
}

// Release ends Hold: the next Refresh delivers what was held, in order,
// then what came since.
func (f *Feeds) Release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = false
}

// holding reports whether deliveries are held.
func (f *Feeds) holding() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held
}

// Hide removes the object with a cache key from the stores of the
// informers of gvr without telling their handlers; the world delivers it
// at the next Refresh as it then is, as an add. It reports whether any
// informer's store held it. An informer's feed that fails is a
// WorldError.
func (f *Feeds) Hide(gvr schema.GroupVersionResource, key string) (bool, error) {
	fs, err := f.feedsOf(gvr)
	if err != nil {
		return false, &WorldError{err}
	}
	hidden := false
	for _, fi := range fs {
		indexer := fi.Informer.GetIndexer()
		obj, ok, err := indexer.GetByKey(key)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		if err := indexer.Delete(obj); err != nil {
			return false, err
		}
		hidden = true
	}
	return hidden, nil
}
