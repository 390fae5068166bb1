package checks

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
)

// Publisher publishes the images of each Deployment in an immutable
// ConfigMap, "<deployment>-images", that the Deployment controls. An
// immutable ConfigMap cannot be changed: when the images change, Publisher
// replaces it (a delete, then a create of the same name). It deletes the
// other ConfigMaps the Deployment controls (those of an older naming). Its
// ConfigMap handler puts the controlling Deployment's key on the queue.
//
// Broken's ConfigMap handler was written for watch events alone: the
// ConfigMaps are immutable, so it has no UpdateFunc, and its DeleteFunc
// takes every deleted object for a *ConfigMap. But an informer that falls
// behind relists: a ConfigMap replaced meanwhile then arrives as one
// update (another UID), and one deleted meanwhile as a tombstone,
// cache.DeletedFinalStateUnknown, on which Broken panics (in a running
// controller, a crash). Correct handles update and unwraps tombstones.
//
// Caught by the event-order sweep (Checks.EventSweep, Table.EventSweep):
// the coalesced and relist variants.
type Publisher struct {
	client      kubernetes.Interface
	deployments appslisters.DeploymentLister
	configMaps  corelisters.ConfigMapLister
	queue       workqueue.TypedRateLimitingInterface[string]
}

// NewPublisher builds a Publisher and registers its event handlers: a
// Deployment's events enqueue its key, a ConfigMap's the key of the
// Deployment that controls it.
func NewPublisher(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, configMaps coreinformers.ConfigMapInformer,
	queue workqueue.TypedRateLimitingInterface[string], v Variant) (*Publisher, error) {
	c := &Publisher{client: client, deployments: deployments.Lister(), configMaps: configMaps.Lister(), queue: queue}
	if _, err := deployments.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueue,
		UpdateFunc: func(old, cur any) {
			if old.(*appsv1.Deployment).ResourceVersion != cur.(*appsv1.Deployment).ResourceVersion { // not a resync
				c.enqueue(cur)
			}
		},
		DeleteFunc: c.enqueue,
	}); err != nil {
		return nil, fmt.Errorf("adding Deployment event handler: %w", err)
	}
	handler := cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueOwner,
		UpdateFunc: func(_, cur any) { c.enqueueOwner(cur) },
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			c.enqueueOwner(obj)
		},
	}
	if v == Broken {
		// BUG (Broken): no update (the ConfigMaps are immutable) and no
		// tombstone.
		handler = cache.ResourceEventHandlerFuncs{
			AddFunc:    c.enqueueOwner,
			DeleteFunc: func(obj any) { c.enqueueOwner(obj.(*corev1.ConfigMap)) },
		}
	}
	if _, err := configMaps.Informer().AddEventHandler(handler); err != nil {
		return nil, fmt.Errorf("adding ConfigMap event handler: %w", err)
	}
	return c, nil
}

// enqueue puts the key of a Deployment (or of its tombstone) on the queue.
func (c *Publisher) enqueue(obj any) {
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
		c.queue.Add(key)
	}
}

// enqueueOwner puts the key of the Deployment that controls a ConfigMap
// on the queue.
func (c *Publisher) enqueueOwner(obj any) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return
	}
	if ref := metav1.GetControllerOf(cm); ref != nil && ref.Kind == "Deployment" && ref.APIVersion == appsv1.SchemeGroupVersion.String() {
		c.queue.Add(cm.Namespace + "/" + ref.Name)
	}
}

// PublishedConfigMap is the ConfigMap Publisher keeps for d: its
// containers' images, one "name=image" a line, in the key "images".
func PublishedConfigMap(d *appsv1.Deployment) *corev1.ConfigMap {
	var images []string
	for _, c := range d.Spec.Template.Spec.Containers {
		images = append(images, c.Name+"="+c.Image)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: d.Namespace, Name: d.Name + "-images",
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Immutable: ptr.To(true),
		Data:      map[string]string{"images": strings.Join(images, "\n")},
	}
}

// Sync publishes the images of the Deployment named by key
// ("namespace/name"), replacing its ConfigMap when they changed, and
// deletes the other ConfigMaps the Deployment controls.
func (c *Publisher) Sync(ctx context.Context, key string) error {
	d, err := cachedDeployment(c.deployments, key)
	if d == nil || err != nil {
		return err
	}
	cms, err := c.configMaps.ConfigMaps(d.Namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	slices.SortFunc(cms, func(a, b *corev1.ConfigMap) int { return strings.Compare(a.Name, b.Name) })
	want := PublishedConfigMap(d)
	published := false
	for _, cm := range cms {
		if !metav1.IsControlledBy(cm, d) {
			continue
		}
		if cm.Name == want.Name && cm.Data["images"] == want.Data["images"] {
			published = true
			continue
		}
		// Another name, or stale images (immutable: replaced).
		err := c.client.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
		}
	}
	if published {
		return nil
	}
	_, err = c.client.CoreV1().ConfigMaps(d.Namespace).Create(ctx, want, metav1.CreateOptions{})
	return err
}
