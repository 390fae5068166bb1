package apiserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func runningPod(name string, edit ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "web"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	for _, e := range edit {
		e(p)
	}
	return p
}

// budget is a PodDisruptionBudget for app=web whose status the disruption
// controller has computed.
func budget(name string, allowed, current, desired int32, edit ...func(*policyv1.PodDisruptionBudget)) *policyv1.PodDisruptionBudget {
	b := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(desired)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: allowed, CurrentHealthy: current, DesiredHealthy: desired}}
	for _, e := range edit {
		e(b)
	}
	return b
}

// seed stores obj as a controller's status write would leave it: created,
// then its status written.
func (w *world) seed(t *testing.T, resource string, obj runtime.Object) {
	t.Helper()
	r := w.res[resource]
	withStatus := obj.DeepCopyObject()
	w.create(t, resource, obj)
	m, _ := meta.Accessor(withStatus)
	stored, err := w.tracker.Get(r.GVR, "ns", m.GetName())
	if err != nil {
		t.Fatal(err)
	}
	sm, _ := meta.Accessor(stored)
	m.SetResourceVersion(sm.GetResourceVersion())
	m.SetNamespace("ns")
	if _, _, err := w.m.Do(r, clienttesting.NewUpdateSubresourceAction(r.GVR, "status", "ns", withStatus)); err != nil {
		t.Fatalf("status of %s: %v", m.GetName(), err)
	}
}

func evict(name string, opts *metav1.DeleteOptions) clienttesting.CreateActionImpl {
	a := clienttesting.NewCreateSubresourceAction(corev1.SchemeGroupVersion.WithResource("pods"), name, "eviction", "ns",
		&policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, DeleteOptions: opts})
	return a
}

func TestEviction(t *testing.T) {
	tooMany := func(msg string) func(*testing.T, error) {
		return func(t *testing.T, err error) {
			t.Helper()
			status, ok := err.(apierrors.APIStatus)
			if !apierrors.IsTooManyRequests(err) || !ok || len(status.Status().Details.Causes) != 1 || status.Status().Details.Causes[0].Message != msg ||
				status.Status().Message != "Cannot evict pod as it would violate the pod's disruption budget." {
				t.Errorf("eviction: %#v; want a 429 with the cause %q", err, msg)
			}
		}
	}
	for _, tc := range []struct {
		name    string
		pod     *corev1.Pod
		budgets []*policyv1.PodDisruptionBudget
		opts    *metav1.DeleteOptions
		// checkErr checks the error; nil: the eviction must succeed.
		checkErr func(*testing.T, error)
		// evicted: the pod is gone (or being deleted) after the request.
		evicted bool
		// allowed is the first budget's disruptionsAllowed after (-1: no budget).
		allowed int32
	}{
		{name: "no budget", pod: runningPod("p"), evicted: true, allowed: -1},
		{name: "a budget that allows one", pod: runningPod("p"), budgets: []*policyv1.PodDisruptionBudget{budget("pdb", 1, 3, 2)}, evicted: true, allowed: 0},
		{name: "a budget that allows none", pod: runningPod("p"), budgets: []*policyv1.PodDisruptionBudget{budget("pdb", 0, 2, 2)},
			checkErr: tooMany("The disruption budget pdb needs 2 healthy pods and has 2 currently"), allowed: 0},
		{name: "a budget the controller has not observed", pod: runningPod("p"),
			budgets:  []*policyv1.PodDisruptionBudget{budget("pdb", 1, 3, 2, func(b *policyv1.PodDisruptionBudget) { b.Status.ObservedGeneration = 0 })},
			checkErr: tooMany("The disruption budget pdb is still being processed by the server."), allowed: 1},
		{name: "a budget of another app", pod: runningPod("p", func(p *corev1.Pod) { p.Labels["app"] = "api" }),
			budgets: []*policyv1.PodDisruptionBudget{budget("pdb", 0, 2, 2)}, evicted: true, allowed: 0},
		{name: "a pending pod ignores budgets", pod: runningPod("p", func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }),
			budgets: []*policyv1.PodDisruptionBudget{budget("pdb", 0, 2, 2)}, evicted: true, allowed: 0},
		{name: "a finished pod ignores budgets", pod: runningPod("p", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }),
			budgets: []*policyv1.PodDisruptionBudget{budget("pdb", 0, 2, 2)}, evicted: true, allowed: 0},
		{name: "an unready pod with AlwaysAllow does not spend the budget", pod: runningPod("p", func(p *corev1.Pod) { p.Status.Conditions = nil }),
			budgets: []*policyv1.PodDisruptionBudget{budget("pdb", 1, 2, 2, func(b *policyv1.PodDisruptionBudget) {
				b.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.AlwaysAllow)
			})}, evicted: true, allowed: 1},
		{name: "an unready pod of a healthy application does not spend the budget", pod: runningPod("p", func(p *corev1.Pod) { p.Status.Conditions = nil }),
			budgets: []*policyv1.PodDisruptionBudget{budget("pdb", 0, 2, 2)}, evicted: true, allowed: 0},
		{name: "two budgets", pod: runningPod("p"), budgets: []*policyv1.PodDisruptionBudget{budget("a", 1, 3, 2), budget("b", 1, 3, 2)},
			checkErr: func(t *testing.T, err error) {
				if apierrors.ReasonForError(err) != metav1.StatusReasonUnknown || err.(apierrors.APIStatus).Status().Code != http.StatusInternalServerError ||
					!strings.Contains(err.Error(), "more than one PodDisruptionBudget") {
					t.Errorf("eviction with two budgets: %v; want a 500", err)
				}
			}, allowed: 1},
		{name: "a negative budget", pod: runningPod("p"), budgets: []*policyv1.PodDisruptionBudget{budget("pdb", -1, 1, 2)},
			checkErr: func(t *testing.T, err error) {
				if !apierrors.IsForbidden(err) {
					t.Errorf("eviction with a negative budget: %v; want Forbidden", err)
				}
			}, allowed: -1},
		{name: "dry run", pod: runningPod("p"), budgets: []*policyv1.PodDisruptionBudget{budget("pdb", 1, 3, 2)},
			opts: &metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}, allowed: 1},
		{name: "a stale resourceVersion precondition", pod: runningPod("p"), opts: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}},
			checkErr: func(t *testing.T, err error) {
				if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `Operation cannot be fulfilled on Pod "p"`) {
					t.Errorf("eviction with a stale precondition: %v; want the Pod Conflict", err)
				}
			}, allowed: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.seed(t, "v1/pods", tc.pod)
			for _, b := range tc.budgets {
				w.seed(t, "v1/poddisruptionbudgets", b)
			}
			before := w.get(t, "v1/poddisruptionbudgets", "pdb")
			_, changed, err := w.do(t, "v1/pods", evict("p", tc.opts))
			if tc.checkErr != nil {
				tc.checkErr(t, err)
			} else if err != nil {
				t.Fatalf("eviction: %v", err)
			}
			if tc.checkErr != nil && changed {
				t.Errorf("a refused eviction changed the world")
			}
			if got := w.get(t, "v1/pods", "p") == nil; got != tc.evicted {
				t.Errorf("pod deleted: %v, want %v", got, tc.evicted)
			}
			if tc.allowed >= 0 && len(tc.budgets) > 0 {
				b := w.get(t, "v1/poddisruptionbudgets", tc.budgets[0].Name).(*policyv1.PodDisruptionBudget)
				if b.Status.DisruptionsAllowed != tc.allowed {
					t.Errorf("disruptionsAllowed after: %d, want %d", b.Status.DisruptionsAllowed, tc.allowed)
				}
				spent := tc.budgets[0].Status.DisruptionsAllowed != tc.allowed
				if _, ok := b.Status.DisruptedPods["p"]; ok != spent {
					t.Errorf("disruptedPods %v after; want the pod in it: %v", b.Status.DisruptedPods, spent)
				}
				if spent && (len(w.written) != 1 || w.written[0] != "poddisruptionbudgets ns/pdb") {
					t.Errorf("Written calls %q; want the budget's", w.written)
				}
				if !spent && before != nil && b.ResourceVersion != before.(*policyv1.PodDisruptionBudget).ResourceVersion {
					t.Errorf("an unspent budget was written")
				}
			}
		})
	}
}

// A pod bound to a node is deleted gracefully: it stays, being deleted,
// with the DisruptionTarget condition the eviction gave it.
func TestEvictionOfABoundPod(t *testing.T) {
	w := newWorld(t)
	w.seed(t, "v1/pods", runningPod("p", func(p *corev1.Pod) { p.Spec.NodeName = "n1" }))
	w.seed(t, "v1/poddisruptionbudgets", budget("pdb", 1, 3, 2))
	if _, _, err := w.do(t, "v1/pods", evict("p", nil)); err != nil {
		t.Fatal(err)
	}
	p := w.get(t, "v1/pods", "p").(*corev1.Pod)
	if p.DeletionTimestamp == nil || *p.DeletionGracePeriodSeconds != 30 {
		t.Errorf("the evicted pod is not being deleted gracefully: %+v", p.ObjectMeta)
	}
	var cond *corev1.PodCondition
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.DisruptionTarget {
			cond = &p.Status.Conditions[i]
		}
	}
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != "EvictionByEvictionAPI" || cond.Message != "Eviction API: evicting" {
		t.Errorf("DisruptionTarget condition: %+v", cond)
	}
	b := w.get(t, "v1/poddisruptionbudgets", "pdb").(*policyv1.PodDisruptionBudget)
	c := meta.FindStatusCondition(b.Status.Conditions, policyv1.DisruptionAllowedCondition)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != policyv1.InsufficientPodsReason {
		t.Errorf("the spent budget's DisruptionAllowed condition: %+v", c)
	}
}

func TestEvictionRefusals(t *testing.T) {
	w := newWorld(t)
	_, _, err := w.do(t, "v1/pods", evict("missing", nil))
	if !apierrors.IsNotFound(err) {
		t.Errorf("eviction of a missing pod: %v", err)
	}
	a := evict("p", nil)
	a.Object = &corev1.Pod{}
	if _, _, err := w.do(t, "v1/pods", a); !apierrors.IsBadRequest(err) {
		t.Errorf("eviction with a Pod body: %v; want a BadRequest", err)
	}
	a = evict("p", nil)
	a.Name = "other"
	if _, _, err := w.do(t, "v1/pods", a); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "name in URL does not match name in Eviction object") {
		t.Errorf("eviction named apart from its URL: %v", err)
	}
	w.create(t, "v1/configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p"}})
	r := w.res["v1/configmaps"]
	if _, _, err := w.m.Do(r, clienttesting.NewCreateSubresourceAction(r.GVR, "p", "eviction", "ns", &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p"}})); !apierrors.IsNotFound(err) {
		t.Errorf("eviction of a configmap: %v; want the server's 404", err)
	}
}

// Deleting a pod with no grace period first writes its deletion timestamp
// (a watch sees it modified), then deletes it: the Pod strategy's
// deletes are always graceful.
func TestPodDeleteWithoutGracePeriod(t *testing.T) {
	w := newWorld(t)
	w.create(t, "v1/pods", runningPod("p"))
	r := w.res["v1/pods"]
	watcher, err := w.tracker.Watch(r.GVR, "ns")
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Stop()
	if _, _, err := w.do(t, "v1/pods", clienttesting.NewDeleteAction(r.GVR, "ns", "p")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 2 {
		ev := <-watcher.ResultChan()
		p := ev.Object.(*corev1.Pod)
		got = append(got, fmt.Sprintf("%s deleting=%v", ev.Type, p.DeletionTimestamp != nil))
	}
	if want := []string{"MODIFIED deleting=true", "DELETED deleting=true"}; !slices.Equal(got, want) {
		t.Errorf("watch events of the delete: %q, want %q", got, want)
	}
}

// A delete-collection selects with the kind's fields, and refuses others.
func TestDeleteCollectionFieldSelectors(t *testing.T) {
	w := newWorld(t)
	for _, p := range []*corev1.Pod{runningPod("a"), runningPod("b")} {
		if p.Name == "a" {
			p.Spec.NodeName = "n1"
		}
		w.create(t, "v1/pods", p)
	}
	r := w.res["v1/pods"]
	_, _, err := w.do(t, "v1/pods", clienttesting.NewDeleteCollectionAction(r.GVR, "ns", metav1.ListOptions{FieldSelector: "spec.nodeName=n1"}))
	if err != nil {
		t.Fatal(err)
	}
	if w.get(t, "v1/pods", "b") == nil {
		t.Errorf("pod b, on no node, was deleted")
	}
	if a := w.get(t, "v1/pods", "a"); a == nil || a.(*corev1.Pod).DeletionTimestamp == nil {
		t.Errorf("pod a, on n1, is not being deleted: %v", a)
	}
	_, _, err = w.do(t, "v1/pods", clienttesting.NewDeleteCollectionAction(r.GVR, "ns", metav1.ListOptions{FieldSelector: "spec.foo=x"}))
	if !apierrors.IsBadRequest(err) {
		t.Errorf("delete-collection with an unsupported field: %v; want a BadRequest", err)
	}
}
