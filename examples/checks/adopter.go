package checks

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
)

const (
	// AdoptedLabel is the label Adopter puts on every Deployment, with the
	// value "true".
	AdoptedLabel = "example.ctrltest.dev/adopted"
	// ConditionAdopted is the type of the condition Adopter adds to the
	// status of every Deployment it adopts.
	ConditionAdopted appsv1.DeploymentConditionType = "Adopted"
)

// Adopter adopts Deployments: it labels each one with AdoptedLabel (an
// update), then records the adoption in its status with an Adopted
// condition (an update of the status subresource).
//
// Broken makes its second write from the copy it made for the first. That
// copy still carries the resourceVersion the first write replaced, so a
// real API server refuses the status update with a conflict: every adoption
// fails once, logs an error and waits for a retry. Correct makes the second
// write from the object the first write returned.
//
// client-go's bare fake clientset does not check resourceVersions: both
// variants pass there (fixture.WithBareFakes). The fixture's API server
// model, on by default, reveals the conflict.
type Adopter struct {
	client  kubernetes.Interface
	lister  appslisters.DeploymentLister
	variant Variant
}

// NewAdopter builds an Adopter that reads Deployments through the
// informer's lister and writes through client.
func NewAdopter(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, v Variant) *Adopter {
	return &Adopter{client: client, lister: deployments.Lister(), variant: v}
}

// Sync adopts the Deployment named by key ("namespace/name").
func (c *Adopter) Sync(ctx context.Context, key string) error {
	cached, err := cachedDeployment(c.lister, key)
	if cached == nil || err != nil {
		return err
	}
	namespace := cached.Namespace
	deployments := c.client.AppsV1().Deployments(namespace)

	d := cached.DeepCopy()
	if d.Labels[AdoptedLabel] != "true" {
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		d.Labels[AdoptedLabel] = "true"
		updated, err := deployments.Update(ctx, d, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		if c.variant == Correct {
			d = updated // the server's answer carries the new resourceVersion
		}
		// BUG (Broken): d keeps the resourceVersion this update replaced.
	}

	for _, cond := range d.Status.Conditions {
		if cond.Type == ConditionAdopted {
			return nil
		}
	}
	d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{
		Type: ConditionAdopted, Status: corev1.ConditionTrue, Reason: "Adopted",
	})
	_, err = deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}
