package checks

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
)

// TierLabel is the label Tagger puts on every Deployment: "large" for more
// than 3 replicas, "small" otherwise.
const TierLabel = "example.ctrltest.dev/tier"

// Tagger labels every Deployment with its tier (TierLabel).
//
// Broken clears the resourceVersion of the cached copy it updates, "so
// that the update never conflicts". The server then takes the update
// unconditionally: whatever another client changed since the cache's copy
// (a label, an annotation, the replicas) is written back to what the
// cache showed. Correct keeps the resourceVersion: the server refuses the
// stale update with a conflict, the sync returns it, and the retry reads
// the newer object.
//
// Caught by the stale-cache sweep (Checks.CacheSweep, Table.CacheSweep): a
// lost update under the other-writer lag.
type Tagger struct {
	client  kubernetes.Interface
	lister  appslisters.DeploymentLister
	variant Variant
}

// NewTagger builds a Tagger that reads Deployments through the informer's
// lister and writes through client.
func NewTagger(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, v Variant) *Tagger {
	return &Tagger{client: client, lister: deployments.Lister(), variant: v}
}

// Sync labels the Deployment named by key ("namespace/name") with its tier.
func (c *Tagger) Sync(ctx context.Context, key string) error {
	cached, err := cachedDeployment(c.lister, key)
	if cached == nil || err != nil {
		return err
	}
	tier := "small"
	if cached.Spec.Replicas != nil && *cached.Spec.Replicas > 3 {
		tier = "large"
	}
	if cached.Labels[TierLabel] == tier {
		return nil
	}
	d := cached.DeepCopy()
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	d.Labels[TierLabel] = tier
	if c.variant == Broken {
		// BUG (Broken): an unconditional update overwrites every change
		// the cache has not shown yet.
		d.ResourceVersion = ""
	}
	if _, err := c.client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("labelling Deployment %s: %w", key, err)
	}
	return nil
}
