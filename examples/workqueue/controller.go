package workqueue

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

const (
	// SeenLabel is the label the controller puts on every Pod it sees, with
	// the value "true".
	SeenLabel = "example.ctrltest.dev/seen"
	// ReasonSeen is the reason of the Normal event recorded when a Pod is
	// labelled.
	ReasonSeen = "Seen"
	// MessageSeen is the message of that event.
	MessageSeen = "Pod seen by the controller"

	// maxRetries is how many times a failing key is requeued before the
	// controller drops it.
	maxRetries = 5
)

// Controller labels the Pods it watches.
type Controller struct {
	indexer  cache.Indexer
	queue    workqueue.TypedRateLimitingInterface[string]
	informer cache.Controller

	client   kubernetes.Interface
	recorder record.EventRecorder
}

// NewController creates a new Controller. The informer fills the indexer and
// its event handlers (see [EventHandler]) fill the queue; client and recorder
// are what the sync handler writes through.
func NewController(queue workqueue.TypedRateLimitingInterface[string], indexer cache.Indexer, informer cache.Controller, client kubernetes.Interface, recorder record.EventRecorder) *Controller {
	return &Controller{
		informer: informer,
		indexer:  indexer,
		queue:    queue,
		client:   client,
		recorder: recorder,
	}
}

// EventHandler returns the informer event handlers that put the key of every
// added, updated or deleted Pod on queue.
func EventHandler(queue workqueue.TypedRateLimitingInterface[string]) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
				queue.Add(key)
			}
		},
		UpdateFunc: func(_, newObj any) {
			if key, err := cache.MetaNamespaceKeyFunc(newObj); err == nil {
				queue.Add(key)
			}
		},
		DeleteFunc: func(obj any) {
			// Deletes may deliver a tombstone: use the key function that
			// unwraps it.
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				queue.Add(key)
			}
		},
	}
}

func (c *Controller) processNextItem(ctx context.Context) bool {
	// Wait until there is a new item in the working queue.
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	// Tell the queue that we are done with processing this key. This
	// unblocks the key for other workers, so two workers never process the
	// same key at once.
	defer c.queue.Done(key)

	err := c.syncPod(ctx, key)
	c.handleErr(ctx, err, key)
	return true
}

// syncPod is the business logic of the controller: it labels the Pod named
// by key as seen and records an event. A Pod that is gone or already
// labelled needs nothing. The retry logic is not part of the business logic:
// it just returns the error.
func (c *Controller) syncPod(ctx context.Context, key string) error {
	logger := klog.FromContext(ctx)
	obj, exists, err := c.indexer.GetByKey(key)
	if err != nil {
		return fmt.Errorf("fetching object with key %s from store failed: %w", key, err)
	}
	if !exists {
		logger.V(2).Info("Pod does not exist anymore", "pod", key)
		return nil
	}
	pod := obj.(*corev1.Pod)
	if pod.Labels[SeenLabel] == "true" {
		return nil
	}

	// The indexer's Pod is shared with the informer's cache: change a copy.
	pod = pod.DeepCopy()
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[SeenLabel] = "true"
	if _, err := c.client.CoreV1().Pods(pod.Namespace).Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("labelling pod %s: %w", key, err)
	}
	c.recorder.Event(pod, corev1.EventTypeNormal, ReasonSeen, MessageSeen)
	return nil
}

// handleErr checks if an error happened and makes sure we will retry later.
func (c *Controller) handleErr(ctx context.Context, err error, key string) {
	logger := klog.FromContext(ctx)
	if err == nil {
		// Forget about the AddRateLimited history of the key on every
		// successful sync, so that later updates are not delayed by an
		// outdated error history.
		c.queue.Forget(key)
		return
	}

	// This controller retries maxRetries times if something goes wrong.
	// After that, it stops trying.
	if c.queue.NumRequeues(key) < maxRetries {
		logger.Info("Syncing failed, will retry", "pod", key, "err", err)
		// Re-enqueue the key rate limited: the rate limiter decides, from
		// the key's history, when it is processed again.
		c.queue.AddRateLimited(key)
		return
	}

	c.queue.Forget(key)
	// Report that, even after several retries, the key could not be
	// processed.
	runtime.HandleErrorWithLogger(logger, err, "Dropping pod out of the queue", "pod", key)
}

// Run starts the informer, waits for its cache to sync, then runs workers
// goroutines that process keys until ctx is done.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer runtime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)

	// Let the workers stop when we are done.
	defer c.queue.ShutDown()
	logger.Info("Starting Pod controller")
	defer logger.Info("Stopping Pod controller")

	go c.informer.RunWithContext(ctx)

	// Wait for the cache to be synced before processing items from the
	// queue.
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.informer.HasSynced) {
		runtime.HandleErrorWithContext(ctx, nil, "Timed out waiting for caches to sync")
		return
	}

	for range workers {
		go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	}

	<-ctx.Done()
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextItem(ctx) {
	}
}
