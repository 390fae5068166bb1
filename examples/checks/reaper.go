package checks

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// WorkerOfLabel names, on a Pod, the Deployment it works for. Reaper
// deletes the Pods whose Deployment is gone.
const WorkerOfLabel = "example.ctrltest.dev/worker-of"

// Reaper deletes the worker Pods (WorkerOfLabel) of Deployments that no
// longer exist. Its key is the Deployment's key.
//
// Broken takes the lister's NotFound for a deletion. But a Deployment
// created a moment ago is not in the cache yet either (its key came from
// a Pod's event, or the Deployment informer's add event has not arrived):
// Broken deletes the Pods of a Deployment that exists. Correct confirms
// the deletion with a live GET before it deletes anything.
//
// Caught by the stale-cache sweep (Checks.CacheSweep, Table.CacheSweep): a
// lost object under the not-in-cache lag.
type Reaper struct {
	client      kubernetes.Interface
	deployments appslisters.DeploymentLister
	pods        corelisters.PodLister
	variant     Variant
}

// NewReaper builds a Reaper that reads Deployments and Pods through the
// informers' listers and writes through client.
func NewReaper(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, pods coreinformers.PodInformer, v Variant) *Reaper {
	return &Reaper{client: client, deployments: deployments.Lister(), pods: pods.Lister(), variant: v}
}

// Sync deletes the worker Pods of the Deployment named by key
// ("namespace/name") if it is gone.
func (c *Reaper) Sync(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	d, err := cachedDeployment(c.deployments, key)
	if d != nil || err != nil {
		return err
	}
	if c.variant == Correct {
		_, err := c.client.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case err == nil:
			return nil // it exists: the cache has not caught up
		case !apierrors.IsNotFound(err):
			return err
		}
	}
	// BUG (Broken): nothing says the Deployment is gone but a cache miss.
	pods, err := c.pods.Pods(namespace).List(labels.SelectorFromSet(labels.Set{WorkerOfLabel: name}))
	if err != nil {
		return err
	}
	for _, p := range pods {
		err := c.client.CoreV1().Pods(namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting worker Pod %s/%s: %w", namespace, p.Name, err)
		}
	}
	return nil
}
