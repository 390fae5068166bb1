package checks

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/utils/ptr"
)

// MinReplicas is the fewest replicas ReplicaFloor lets a Deployment ask for.
const MinReplicas int32 = 2

// ReplicaFloor scales every Deployment that asks for fewer than MinReplicas
// up to MinReplicas.
//
// Broken sets spec.replicas on the Deployment its lister returned. That
// object is the informer cache's own, shared with every reader of the
// cache: they now see a scale the API server never accepted. And when the
// update fails, the retry finds the cached Deployment already at
// MinReplicas and does nothing, so the Deployment is never scaled. Correct
// changes a DeepCopy.
//
// Caught by the cache-mutation check, on by default in fixture.Sync.
type ReplicaFloor struct {
	client  kubernetes.Interface
	lister  appslisters.DeploymentLister
	variant Variant
}

// NewReplicaFloor builds a ReplicaFloor that reads Deployments through the
// informer's lister and writes through client.
func NewReplicaFloor(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, v Variant) *ReplicaFloor {
	return &ReplicaFloor{client: client, lister: deployments.Lister(), variant: v}
}

// Sync scales the Deployment named by key ("namespace/name") up to
// MinReplicas if it asks for fewer.
func (c *ReplicaFloor) Sync(ctx context.Context, key string) error {
	d, err := cachedDeployment(c.lister, key)
	if d == nil || err != nil {
		return err
	}
	namespace := d.Namespace
	if d.Spec.Replicas != nil && *d.Spec.Replicas >= MinReplicas {
		return nil
	}

	if c.variant == Correct {
		d = d.DeepCopy() // the lister's object belongs to the cache: change a copy
	}
	// BUG (Broken): without the copy, this changes the informer cache.
	d.Spec.Replicas = ptr.To(MinReplicas)
	_, err = c.client.AppsV1().Deployments(namespace).Update(ctx, d, metav1.UpdateOptions{})
	return err
}
