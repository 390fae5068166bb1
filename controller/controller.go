package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned"
	fooinformers "github.com/ctrltest/ctrltest/controller/generated/informers/externalversions/samplecontroller/v1alpha1"
	foolisters "github.com/ctrltest/ctrltest/controller/generated/listers/samplecontroller/v1alpha1"
)

// FieldManager is the field manager name the controller sends with every
// write it makes.
const FieldManager = "foo-controller"

const (
	// SuccessSynced is the reason of the Normal event recorded after a Foo
	// has been synced successfully.
	SuccessSynced = "Synced"
	// ErrResourceExists is the reason of the Warning event recorded when the
	// Deployment a Foo names already exists but is not controlled by it.
	ErrResourceExists = "ErrResourceExists"

	// MessageResourceExists is the format of the message of an
	// ErrResourceExists event; its one argument is the Deployment's name.
	MessageResourceExists = "Resource %q already exists and is not managed by Foo"
	// MessageResourceSynced is the message of a SuccessSynced event.
	MessageResourceSynced = "Foo synced successfully"
)

// DefaultMaxRetries is how many times a failing key is put back on the queue
// before the controller gives up on it, unless WithMaxRetries says otherwise.
const DefaultMaxRetries = 5

// fooKind is the kind of a Foo, as found in owner references.
const fooKind = "Foo"

// Controller keeps Deployments in line with the Foos that ask for them and
// reports their availability back in the Foos' status.
type Controller struct {
	kubeClient kubernetes.Interface
	fooClient  versioned.Interface

	deploymentsLister appslisters.DeploymentLister
	deploymentsSynced cache.InformerSynced
	foosLister        foolisters.FooLister
	foosSynced        cache.InformerSynced

	queue      workqueue.TypedRateLimitingInterface[cache.ObjectName]
	maxRetries int
	recorder   record.EventRecorder

	// logger is used by the informer event handlers, which get no context.
	logger klog.Logger
}

// Option configures a Controller built by New.
type Option func(*Controller)

// WithQueue makes the controller use q as its work queue instead of a
// default rate-limited queue. The controller shuts q down when Run returns.
// A nil q keeps the default.
func WithQueue(q workqueue.TypedRateLimitingInterface[cache.ObjectName]) Option {
	return func(c *Controller) {
		c.queue = q
	}
}

// WithMaxRetries sets how many times a key whose sync fails is requeued
// before the controller drops it. A negative n is treated as 0 (never retry).
func WithMaxRetries(n int) Option {
	return func(c *Controller) {
		c.maxRetries = max(n, 0)
	}
}

// New builds a Controller and registers its event handlers on the two
// informers. The logger stored in ctx (klog.FromContext) is used by those
// handlers. New does not start the informers; start them, then call Run.
func New(
	ctx context.Context,
	kubeClient kubernetes.Interface,
	fooClient versioned.Interface,
	deploymentInformer appsinformers.DeploymentInformer,
	fooInformer fooinformers.FooInformer,
	recorder record.EventRecorder,
	opts ...Option,
) (*Controller, error) {
	c := &Controller{
		kubeClient:        kubeClient,
		fooClient:         fooClient,
		deploymentsLister: deploymentInformer.Lister(),
		deploymentsSynced: deploymentInformer.Informer().HasSynced,
		foosLister:        fooInformer.Lister(),
		foosSynced:        fooInformer.Informer().HasSynced,
		maxRetries:        DefaultMaxRetries,
		recorder:          recorder,
		logger:            klog.FromContext(ctx),
	}
	for _, opt := range opts {
		opt(c)
	}
	// The default queue is built only when no queue was given: a queue owns
	// goroutines, and an unused one would leak them.
	ownQueue := c.queue == nil
	if ownQueue {
		c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "Foos"},
		)
	}

	fooReg, err := fooInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueFoo,
		UpdateFunc: func(_, newObj any) { c.enqueueFoo(newObj) },
	})
	if err != nil {
		if ownQueue {
			c.queue.ShutDown()
		}
		return nil, fmt.Errorf("adding Foo event handler: %w", err)
	}
	if _, err := deploymentInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.handleObject,
		UpdateFunc: c.updateDeployment,
		DeleteFunc: c.handleObject,
	}); err != nil {
		_ = fooInformer.Informer().RemoveEventHandler(fooReg)
		if ownQueue {
			c.queue.ShutDown()
		}
		return nil, fmt.Errorf("adding Deployment event handler: %w", err)
	}
	return c, nil
}

// enqueueFoo puts the name of a Foo on the work queue.
func (c *Controller) enqueueFoo(obj any) {
	name, err := cache.ObjectToName(obj)
	if err != nil {
		utilruntime.HandleErrorWithLogger(c.logger, err, "Failed to get the name of an object to enqueue")
		return
	}
	c.queue.Add(name)
}

// updateDeployment handles a Deployment update. Periodic resyncs deliver
// updates in which nothing changed; those carry the same resourceVersion and
// are ignored.
func (c *Controller) updateDeployment(oldObj, newObj any) {
	oldD, okOld := oldObj.(*appsv1.Deployment)
	newD, okNew := newObj.(*appsv1.Deployment)
	if okOld && okNew && oldD.ResourceVersion == newD.ResourceVersion {
		return
	}
	c.handleObject(newObj)
}

// handleObject enqueues the Foo that controls obj, if any. obj may be a
// cache.DeletedFinalStateUnknown tombstone, which is unwrapped first.
func (c *Controller) handleObject(obj any) {
	object, ok := obj.(metav1.Object)
	if !ok {
		tombstone, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			utilruntime.HandleErrorWithLogger(c.logger, nil, "Ignoring object of unexpected type", "type", fmt.Sprintf("%T", obj))
			return
		}
		object, ok = tombstone.Obj.(metav1.Object)
		if !ok {
			utilruntime.HandleErrorWithLogger(c.logger, nil, "Ignoring tombstone holding an object of unexpected type", "key", tombstone.Key, "type", fmt.Sprintf("%T", tombstone.Obj))
			return
		}
		c.logger.V(4).Info("Recovered deleted object from tombstone", "object", klog.KObj(object))
	}
	logger := klog.LoggerWithValues(c.logger, "object", klog.KObj(object))
	logger.V(4).Info("Processing object")

	ref := metav1.GetControllerOf(object)
	if ref == nil || ref.Kind != fooKind {
		return
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != v1alpha1.SchemeGroupVersion.Group {
		return
	}
	foo, err := c.foosLister.Foos(object.GetNamespace()).Get(ref.Name)
	if err != nil {
		logger.V(4).Info("Ignoring object whose controlling Foo is not known", "foo", ref.Name, "err", err)
		return
	}
	c.enqueueFoo(foo)
}

// Sync brings the world in line with the Foo named by key: it creates the
// Deployment the Foo asks for, scales it to the Foo's replicas and records the
// Deployment's available replicas in the Foo's status. It reads through the
// informers' listers and writes through the clients. A nil error means the key
// need not be retried.
func (c *Controller) Sync(ctx context.Context, key cache.ObjectName) error {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "foo", key)

	foo, err := c.foosLister.Foos(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		logger.V(2).Info("Foo no longer exists; nothing to do")
		return nil
	}
	if err != nil {
		return err
	}

	name := foo.Spec.DeploymentName
	if name == "" {
		// Requeueing cannot help: the Foo has to be edited first, and that
		// edit enqueues it again.
		utilruntime.HandleErrorWithContext(ctx, nil, "Foo has no deployment name in its spec", "foo", key)
		return nil
	}

	deployment, err := c.deploymentsLister.Deployments(foo.Namespace).Get(name)
	if apierrors.IsNotFound(err) {
		logger.V(4).Info("Creating Deployment", "deployment", klog.KRef(foo.Namespace, name))
		deployment, err = c.kubeClient.AppsV1().Deployments(foo.Namespace).Create(ctx, newDeployment(foo), metav1.CreateOptions{FieldManager: FieldManager})
	}
	if err != nil {
		return err
	}

	if !metav1.IsControlledBy(deployment, foo) {
		msg := fmt.Sprintf(MessageResourceExists, deployment.Name)
		c.recorder.Event(foo, corev1.EventTypeWarning, ErrResourceExists, msg)
		return errors.New(msg)
	}

	if want := foo.Spec.Replicas; want != nil && (deployment.Spec.Replicas == nil || *deployment.Spec.Replicas != *want) {
		logger.V(4).Info("Scaling Deployment", "deployment", klog.KObj(deployment), "replicas", *want)
		// The lister's object is shared with the informer cache: change a copy.
		d := deployment.DeepCopy()
		replicas := *want
		d.Spec.Replicas = &replicas
		deployment, err = c.kubeClient.AppsV1().Deployments(foo.Namespace).Update(ctx, d, metav1.UpdateOptions{FieldManager: FieldManager})
		if err != nil {
			return err
		}
	}

	if foo.Status.AvailableReplicas != deployment.Status.AvailableReplicas {
		fooCopy := foo.DeepCopy()
		fooCopy.Status.AvailableReplicas = deployment.Status.AvailableReplicas
		if _, err := c.fooClient.SamplecontrollerV1alpha1().Foos(foo.Namespace).UpdateStatus(ctx, fooCopy, metav1.UpdateOptions{FieldManager: FieldManager}); err != nil {
			return err
		}
	}

	c.recorder.Event(foo, corev1.EventTypeNormal, SuccessSynced, MessageResourceSynced)
	return nil
}

// newDeployment returns the Deployment foo asks for, controlled by foo.
func newDeployment(foo *v1alpha1.Foo) *appsv1.Deployment {
	labels := map[string]string{
		"app":        "nginx",
		"controller": foo.Name,
	}
	var replicas *int32
	if foo.Spec.Replicas != nil {
		r := *foo.Spec.Replicas
		replicas = &r
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:      foo.Spec.DeploymentName,
			Namespace: foo.Namespace,
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(foo, v1alpha1.SchemeGroupVersion.WithKind(fooKind)),
			},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: maps.Clone(labels)},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{
						Name:  "nginx",
						Image: "nginx:latest",
					}},
				},
			},
		},
	}
}

// Run waits for the informers' caches to sync, then runs workers goroutines
// that take keys off the queue and sync them, until ctx is done. It then shuts
// the queue down and returns once every worker has stopped. Whatever the
// outcome, the queue is shut down when Run returns, so Run is called once.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer c.queue.ShutDown()
	if workers < 1 {
		return fmt.Errorf("controller needs at least one worker, got %d", workers)
	}
	logger := klog.FromContext(ctx)
	logger.Info("Starting Foo controller")

	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.deploymentsSynced, c.foosSynced) {
		return errors.New("informer caches did not sync")
	}

	logger.Info("Starting workers", "count", workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			wait.UntilWithContext(ctx, c.runWorker, time.Second)
		})
	}

	<-ctx.Done()
	logger.Info("Shutting down workers")
	// Shutting the queue down wakes workers blocked in Get.
	c.queue.ShutDown()
	wg.Wait()
	logger.Info("Workers stopped")
	return nil
}

// runWorker processes work items until the queue is shut down.
func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

// processNextWorkItem takes one key off the queue and syncs it. A failed key
// is requeued with rate limiting until it has been retried maxRetries times,
// then dropped. It returns false once the queue has been shut down.
func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)

	err := c.Sync(ctx, key)
	if err == nil {
		c.queue.Forget(key)
		return true
	}
	if retries := c.queue.NumRequeues(key); retries < c.maxRetries {
		c.queue.AddRateLimited(key)
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to sync Foo; will retry", "foo", key, "retries", retries)
		return true
	}
	c.queue.Forget(key)
	klog.FromContext(ctx).Error(err, "Giving up on Foo after too many failed syncs", "foo", key, "maxRetries", c.maxRetries)
	return true
}
