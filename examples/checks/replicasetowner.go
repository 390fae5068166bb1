package checks

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// ReplicaSetOwner keeps, in each Deployment's status.readyReplicas, the
// ready replicas of the ReplicaSets the Deployment controls. Its sync reads
// ReplicaSets, so every change to a ReplicaSet must put the key of the
// Deployment that controls it on the work queue: that is the job of the
// ReplicaSet event handler.
//
// Broken's ReplicaSet handler has only an AddFunc, a common slip: when a
// ReplicaSet's status changes, its Deployment is not synced again, and the
// Deployment's status stays stale until the next resync. Correct enqueues
// the controlling Deployment on add, update and delete.
//
// Caught by an informer-mode test of the handlers (fixture.WithInformers,
// Fixture.AwaitEnqueued).
type ReplicaSetOwner struct {
	client      kubernetes.Interface
	deployments appslisters.DeploymentLister
	replicaSets appslisters.ReplicaSetLister
	queue       workqueue.TypedRateLimitingInterface[string]
}

// NewReplicaSetOwner builds a ReplicaSetOwner and registers its event
// handlers on the two informers: a Deployment's own events enqueue its key,
// a ReplicaSet's events the key of the Deployment that controls it.
func NewReplicaSetOwner(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, replicaSets appsinformers.ReplicaSetInformer,
	queue workqueue.TypedRateLimitingInterface[string], v Variant) (*ReplicaSetOwner, error) {
	c := &ReplicaSetOwner{client: client, deployments: deployments.Lister(), replicaSets: replicaSets.Lister(), queue: queue}
	if _, err := deployments.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, newObj any) { c.enqueue(newObj) },
	}); err != nil {
		return nil, fmt.Errorf("adding Deployment event handler: %w", err)
	}

	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueOwner,
		UpdateFunc: func(_, newObj any) { c.enqueueOwner(newObj) },
		DeleteFunc: c.enqueueOwner,
	}
	if v == Broken {
		// BUG (Broken): only adds are handled; a ReplicaSet's updates (and
		// deletes) never reach its Deployment.
		handler = cache.ResourceEventHandlerFuncs{AddFunc: c.enqueueOwner}
	}
	if _, err := replicaSets.Informer().AddEventHandler(handler); err != nil {
		return nil, fmt.Errorf("adding ReplicaSet event handler: %w", err)
	}
	return c, nil
}

// enqueue puts the key of a Deployment on the queue.
func (c *ReplicaSetOwner) enqueue(obj any) {
	if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

// enqueueOwner puts the key of the Deployment that controls a ReplicaSet
// on the queue; obj may be a tombstone.
func (c *ReplicaSetOwner) enqueueOwner(obj any) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return
	}
	ref := metav1.GetControllerOf(rs)
	if ref == nil || ref.Kind != "Deployment" || ref.APIVersion != appsv1.SchemeGroupVersion.String() {
		return
	}
	c.queue.Add(rs.Namespace + "/" + ref.Name)
}

// Sync sets the status.readyReplicas of the Deployment named by key
// ("namespace/name") to the sum of those of the ReplicaSets it controls.
func (c *ReplicaSetOwner) Sync(ctx context.Context, key string) error {
	d, err := cachedDeployment(c.deployments, key)
	if d == nil || err != nil {
		return err
	}
	namespace := d.Namespace
	replicaSets, err := c.replicaSets.ReplicaSets(namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	var ready int32
	for _, rs := range replicaSets {
		if metav1.IsControlledBy(rs, d) {
			ready += rs.Status.ReadyReplicas
		}
	}
	if d.Status.ReadyReplicas == ready {
		return nil
	}
	d = d.DeepCopy()
	d.Status.ReadyReplicas = ready
	_, err = c.client.AppsV1().Deployments(namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	return err
}
