package checks

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/utils/clock"
)

// ConditionObserved is the type of the Deployment condition StatusWriter
// maintains.
const ConditionObserved appsv1.DeploymentConditionType = "Observed"

// StatusWriter reports, in each Deployment's status, that it has seen the
// Deployment's current generation: it sets status.observedGeneration and an
// Observed condition stamped with the time of the write.
//
// Broken writes the status on every sync. Each write makes a new version of
// the Deployment (the condition's timestamp moves), whose watch event puts
// the key back on the work queue, whose sync writes again: a hot loop that
// hammers the API server for as long as the controller runs. Correct writes
// only when the observed generation is behind.
//
// Caught by the idempotency check, on by default in table rows
// (fixture.CheckIdempotent).
type StatusWriter struct {
	client  kubernetes.Interface
	lister  appslisters.DeploymentLister
	clock   clock.PassiveClock
	variant Variant
}

// NewStatusWriter builds a StatusWriter that reads Deployments through the
// informer's lister, writes through client and stamps its conditions with
// clk.
func NewStatusWriter(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, clk clock.PassiveClock, v Variant) *StatusWriter {
	return &StatusWriter{client: client, lister: deployments.Lister(), clock: clk, variant: v}
}

// Sync reports the generation of the Deployment named by key
// ("namespace/name").
func (c *StatusWriter) Sync(ctx context.Context, key string) error {
	cached, err := cachedDeployment(c.lister, key)
	if cached == nil || err != nil {
		return err
	}
	namespace := cached.Namespace

	if c.variant == Correct && cached.Status.ObservedGeneration == cached.Generation {
		return nil // already reported: nothing to write
	}
	// BUG (Broken): without the check above, the status is rebuilt, with a
	// new timestamp, and written on every sync.

	d := cached.DeepCopy()
	d.Status.ObservedGeneration = d.Generation
	setCondition(&d.Status, appsv1.DeploymentCondition{
		Type:           ConditionObserved,
		Status:         corev1.ConditionTrue,
		Reason:         "GenerationObserved",
		LastUpdateTime: metav1.NewTime(c.clock.Now()),
	})
	_, err = c.client.AppsV1().Deployments(namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}

// setCondition replaces the condition of cond's type in status, or adds it.
func setCondition(status *appsv1.DeploymentStatus, cond appsv1.DeploymentCondition) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == cond.Type {
			status.Conditions[i] = cond
			return
		}
	}
	status.Conditions = append(status.Conditions, cond)
}
