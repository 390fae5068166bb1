package delivery

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/internal/apiserver"
)

// An informer made with a namespace or with tweakListOptions (an
// informers.WithNamespace or WithTweakListOptions factory, a
// NewFiltered...Informer given to InformerFor) lists and watches a part
// of the world. In informer mode its requests are answered with the
// selectors honoured. In the default mode the fixture fills its indexer
// itself: it learns what the informer selects by running the informer's
// own list function once with a probe (a list whose resourceVersion is
// ProbeVersion, answered by the world before anything else, not recorded),
// and fills the indexer with the objects the informer would list.

// ProbeVersion marks the fixture's probe of an informer's list options.
const ProbeVersion = "ctrltest.informer-probe"

// ProbeAnswer is the answer to a probe: the namespace and the selectors
// the informer's list function sent.
type ProbeAnswer struct {
	Namespace string
	Restr     clienttesting.ListRestrictions
}

func (*ProbeAnswer) Error() string {
	return "ctrltest: the fixture's probe of an informer's list options (not a request)"
}

// ListProbe answers a probe; ok is false for every other request.
func ListProbe(action clienttesting.Action) (err error, ok bool) {
	a, isList := action.(clienttesting.ListActionImpl)
	if !isList || a.ListOptions.ResourceVersion != ProbeVersion {
		return nil, false
	}
	return &ProbeAnswer{Namespace: a.GetNamespace(), Restr: a.GetListRestrictions()}, true
}

// ProbeContext is the context of a world's probes. A probe that reaches a
// fixture clientset is answered at once; one that reaches another client
// may wait for the network, and the context bounds it by the fixture's
// timeout (at least half of it). The probes of one Start share a context,
// and so one timer.
type ProbeContext struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	until  time.Time
}

// Context returns a context of parent that ends within timeout, and not
// before timeout/2.
func (p *ProbeContext) Context(parent context.Context, timeout time.Duration) context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ctx == nil || time.Until(p.until) < timeout/2 {
		if p.cancel != nil {
			p.cancel()
		}
		p.until = time.Now().Add(timeout)
		p.ctx, p.cancel = context.WithDeadline(parent, p.until)
	}
	return p.ctx
}

// Stop ends the context; a later probe gets a new one.
func (p *ProbeContext) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cancel != nil {
		p.cancel()
	}
	p.ctx, p.cancel = nil, nil
}

// Scope is the part of the world an informer lists: a namespace
// ("" for all) and a selection. A nil scope is the whole world.
type Scope struct {
	Namespace string
	Sel       apiserver.Selection
	Selects   bool
}

// Keep reports whether the informer would list obj.
func (s *Scope) Keep(obj runtime.Object) bool {
	if s == nil {
		return true
	}
	if s.Namespace != "" {
		m, err := meta.Accessor(obj)
		if err != nil || m.GetNamespace() != s.Namespace {
			return false
		}
	}
	return !s.Selects || s.Sel.Matches(obj)
}

// Filter returns the objects of objs the informer would list.
func (s *Scope) Filter(objs []runtime.Object) []runtime.Object {
	if s == nil {
		return objs
	}
	out := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		if s.Keep(o) {
			out = append(out, o)
		}
	}
	return out
}

// Probe runs an informer's list function with the probe and returns what
// it asked for; nil when the list did not reach a fixture clientset (an
// informer of another client), or panicked.
func Probe(ctx context.Context, lw cache.ListerWatcher) (answer *ProbeAnswer) {
	defer func() {
		if recover() != nil {
			answer = nil
		}
	}()
	_, err := cache.ToListerWithContext(lw).ListWithContext(ctx, metav1.ListOptions{ResourceVersion: ProbeVersion})
	if a, ok := err.(*ProbeAnswer); ok { // as the fakes return it
		return a
	}
	errors.As(err, &answer)
	return answer
}
