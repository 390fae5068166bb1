package delivery

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// An informer source is an informer factory whose informers hold another
// form of the world's typed objects: the dynamic informer factory
// (unstructured objects) and the metadata informer factory
// (PartialObjectMetadata). The world treats their informers as it treats
// the typed factories':
//
//   - default mode: the factory is never started; the indexer of an
//     informer the controller asked for (ForResource) is filled, before
//     the next sync, with the converted objects the world holds for its
//     resource, and Refresh updates it after writes;
//   - the cache-mutation check snapshots its objects;
//   - informer mode: the fixture starts the factory with the typed ones,
//     waits for its caches and its event handlers, and Refresh waits until
//     its informers show what the world holds.

// SourceInformerFactory is what the dynamic and the metadata informer
// factories of client-go both offer.
type SourceInformerFactory interface {
	Start(stopCh <-chan struct{})
	ForResource(gvr schema.GroupVersionResource) informers.GenericInformer
	WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool
	Shutdown()
}

// InformerSource is one such factory inside one fixture.
type InformerSource struct {
	Name    string // "dynamic", "metadata"
	Factory SourceInformerFactory
	// Convert makes the informer's form of a typed object.
	Convert func(runtime.Object) (runtime.Object, error)

	mu sync.Mutex
	// requested are the informers asked for, by resource; indexed, those
	// whose indexers the fixture filled (default mode).
	requested map[schema.GroupVersionResource]cache.SharedIndexInformer
	indexed   map[schema.GroupVersionResource]bool
}

// SourceFactory is the factory the fixture hands out: the client-go
// factory, noting which informers the controller asks for.
type SourceFactory struct {
	SourceInformerFactory
	src *InformerSource
}

// ForResource returns the factory's shared informer of gvr.
func (s *SourceFactory) ForResource(gvr schema.GroupVersionResource) informers.GenericInformer {
	gi := s.SourceInformerFactory.ForResource(gvr)
	s.src.mu.Lock()
	if s.src.requested == nil {
		s.src.requested = map[schema.GroupVersionResource]cache.SharedIndexInformer{}
	}
	s.src.requested[gvr] = gi.Informer()
	s.src.mu.Unlock()
	return gi
}

// Sources are the informer sources of one fixture, in the order they were
// made.
type Sources struct {
	mu   sync.Mutex
	list []*InformerSource
}

// Add wraps factory as an informer source.
func (ss *Sources) Add(name string, factory SourceInformerFactory, convert func(runtime.Object) (runtime.Object, error)) *SourceFactory {
	src := &InformerSource{Name: name, Factory: factory, Convert: convert}
	ss.mu.Lock()
	ss.list = append(ss.list, src)
	ss.mu.Unlock()
	return &SourceFactory{SourceInformerFactory: factory, src: src}
}

// All returns the sources.
func (ss *Sources) All() []*InformerSource {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]*InformerSource(nil), ss.list...)
}

// SourceInformer is one informer of a source.
type SourceInformer struct {
	Src      *InformerSource
	GVR      schema.GroupVersionResource
	Informer cache.SharedIndexInformer
}

// Informers returns the informers asked for, sorted by resource; with
// unindexed, only those whose indexers the fixture has not filled yet.
func (s *InformerSource) Informers(unindexed bool) []SourceInformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SourceInformer, 0, len(s.requested))
	for gvr, inf := range s.requested {
		if unindexed && s.indexed[gvr] {
			continue
		}
		out = append(out, SourceInformer{s, gvr, inf})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GVR.String() < out[j].GVR.String() })
	return out
}

// Indexed notes that the indexer of the informer of gvr is filled.
func (s *InformerSource) Indexed(gvr schema.GroupVersionResource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.indexed == nil {
		s.indexed = map[schema.GroupVersionResource]bool{}
	}
	s.indexed[gvr] = true
}

// Of returns every source informer of gvr.
func (ss *Sources) Of(gvr schema.GroupVersionResource) []SourceInformer {
	var out []SourceInformer
	for _, src := range ss.All() {
		src.mu.Lock()
		inf, ok := src.requested[gvr]
		src.mu.Unlock()
		if ok {
			out = append(out, SourceInformer{src, gvr, inf})
		}
	}
	return out
}

// Start starts the source factories (informer mode).
func (ss *Sources) Start(stop <-chan struct{}) {
	for _, src := range ss.All() {
		src.Factory.Start(stop)
	}
}

// Shutdown stops the source factories' informers.
func (ss *Sources) Shutdown() {
	for _, src := range ss.All() {
		src.Factory.Shutdown()
	}
}

// Late reports whether an informer asked for since the sources were
// started (informer mode) does not run yet.
func (ss *Sources) Late() bool {
	for _, src := range ss.All() {
		for _, si := range src.Informers(false) {
			if !si.Informer.HasSynced() && !si.Informer.IsStopped() {
				return true
			}
		}
	}
	return false
}

// Await waits, at most timeout, until the started source informers
// synced and their event handlers processed the initial list; it reports
// false when a handler's registration cannot be reached (see
// AwaitHandlers).
func (ss *Sources) Await(ctx context.Context, timeout time.Duration) (reachable bool, err error) {
	reachable = true
	for _, src := range ss.All() {
		for gvr, ok := range src.Factory.WaitForCacheSync(ctx.Done()) {
			if !ok {
				return false, fmt.Errorf("fixture: the %s informer of %v did not sync within %v", src.Name, gvr, timeout)
			}
		}
		for _, si := range src.Informers(false) {
			r, err := AwaitHandlers(ctx, timeout, si.Informer, fmt.Sprintf("the %s informer of %v", src.Name, si.GVR))
			if err != nil {
				return false, err
			}
			reachable = reachable && r
		}
	}
	return reachable, nil
}
