package checks

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// CanaryLabel marks the canary Pods Canary makes, with the value "true".
const CanaryLabel = "example.ctrltest.dev/canary"

// Canary keeps one canary Pod for every Deployment: a Pod of the
// Deployment's template, controlled by the Deployment. It looks for the
// Pod in the Pod informer's cache and creates it when the cache has none.
//
// Broken names the Pod with generateName. The watch event of the Pod it
// created reaches the cache some time after the create; a sync of the
// Deployment in between (its own status update, a resync, another event)
// finds no Pod and creates a second one, which nothing ever removes.
// Correct names the Pod after its Deployment ("<name>-canary"): a second
// create gets AlreadyExists, which the sync takes as done.
//
// Caught by the stale-cache sweep (Checks.CacheSweep, Table.CacheSweep):
// duplicates under the own-writes lag.
type Canary struct {
	client      kubernetes.Interface
	deployments appslisters.DeploymentLister
	pods        corelisters.PodLister
	variant     Variant
}

// NewCanary builds a Canary that reads Deployments and Pods through the
// informers' listers and writes through client.
func NewCanary(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, pods coreinformers.PodInformer, v Variant) *Canary {
	return &Canary{client: client, deployments: deployments.Lister(), pods: pods.Lister(), variant: v}
}

// Sync makes sure the Deployment named by key ("namespace/name") has its
// canary Pod.
func (c *Canary) Sync(ctx context.Context, key string) error {
	d, err := cachedDeployment(c.deployments, key)
	if d == nil || err != nil {
		return err
	}
	pods, err := c.pods.Pods(d.Namespace).List(labels.SelectorFromSet(labels.Set{CanaryLabel: "true"}))
	if err != nil {
		return err
	}
	for _, p := range pods {
		if metav1.IsControlledBy(p, d) {
			return nil
		}
	}
	pod := canaryPod(d)
	if c.variant == Broken {
		// BUG (Broken): a new name on every create; a sync whose cache
		// does not show the last Pod yet makes another.
		pod.GenerateName, pod.Name = d.Name+"-canary-", ""
	}
	_, err = c.client.CoreV1().Pods(d.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil // created by an earlier sync: the cache will show it
	}
	return err
}

// canaryPod is d's canary Pod, named after d.
func canaryPod(d *appsv1.Deployment) *corev1.Pod {
	lbls := map[string]string{CanaryLabel: "true"}
	for k, v := range d.Spec.Template.Labels {
		lbls[k] = v
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       d.Namespace,
			Name:            d.Name + "-canary",
			Labels:          lbls,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: *d.Spec.Template.Spec.DeepCopy(),
	}
}
