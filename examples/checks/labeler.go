package checks

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/klog/v2"
)

// ManagedLabel is the label Labeler puts on every Deployment, with the
// value "true".
const ManagedLabel = "example.ctrltest.dev/managed"

// Labeler labels every Deployment with ManagedLabel.
//
// Broken logs a failed update and returns nil. The sync "succeeds", the
// worker forgets the key, and the Deployment stays unlabelled until
// something else enqueues it again: the next resync, hours later, or never.
// Correct returns the error, so the key is retried with backoff, except
// not-found: the Deployment was deleted since the informer saw it, and
// nothing is left to label.
//
// Caught by the fault sweep (Checks.FaultSweep, Table.FaultSweep).
type Labeler struct {
	client  kubernetes.Interface
	lister  appslisters.DeploymentLister
	variant Variant
}

// NewLabeler builds a Labeler that reads Deployments through the informer's
// lister and writes through client.
func NewLabeler(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, v Variant) *Labeler {
	return &Labeler{client: client, lister: deployments.Lister(), variant: v}
}

// Sync labels the Deployment named by key ("namespace/name").
func (c *Labeler) Sync(ctx context.Context, key string) error {
	cached, err := cachedDeployment(c.lister, key)
	if cached == nil || err != nil {
		return err
	}
	namespace := cached.Namespace
	if cached.Labels[ManagedLabel] == "true" {
		return nil
	}

	d := cached.DeepCopy()
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	d.Labels[ManagedLabel] = "true"
	_, err = c.client.AppsV1().Deployments(namespace).Update(ctx, d, metav1.UpdateOptions{})
	switch {
	case err == nil:
		return nil
	case c.variant == Broken:
		// BUG (Broken): the error is logged and dropped; the key is not
		// retried.
		klog.FromContext(ctx).Error(err, "Failed to label Deployment", "deployment", key)
		return nil
	case apierrors.IsNotFound(err):
		return nil // deleted since the informer saw it: nothing left to label
	default:
		return fmt.Errorf("labelling Deployment %s: %w", key, err)
	}
}
