package upstream

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

const (
	// MirrorAnnotation on a ConfigMap names the namespace to copy it to.
	MirrorAnnotation = "example.ctrltest.dev/mirror-to"
	// SourceAnnotation on a copy names the ConfigMap it was copied from
	// ("namespace/name").
	SourceAnnotation = "example.ctrltest.dev/mirrored-from"

	// ReasonMirrored is the reason of the Normal event recorded on a
	// ConfigMap when its copy is created or updated.
	ReasonMirrored = "Mirrored"
	// ReasonNotOurs is the reason of the Warning event recorded when the
	// target name is taken by a ConfigMap the controller did not copy.
	ReasonNotOurs = "NotOurs"
)

// Controller copies each ConfigMap annotated with MirrorAnnotation to the
// namespace the annotation names, and keeps the copy's data equal to the
// source's.
//
// It is written the way upstream controllers are (kubernetes/sample-controller,
// kube-controller-manager): its constructor makes its own work queue and
// event broadcaster, and its sync handler is unexported. Its tests, in this
// package, use it unchanged.
type Controller struct {
	client kubernetes.Interface
	lister corelisters.ConfigMapLister
	synced cache.InformerSynced
	queue  workqueue.TypedRateLimitingInterface[string]
	events record.EventBroadcaster
	record record.EventRecorder
}

// NewController makes the controller, its work queue and its event
// broadcaster, which writes events through client.
func NewController(ctx context.Context, client kubernetes.Interface, configMaps coreinformers.ConfigMapInformer) *Controller {
	logger := klog.FromContext(ctx)
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartStructuredLogging(0)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	c := &Controller{
		client: client,
		lister: configMaps.Lister(),
		synced: configMaps.Informer().HasSynced,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "configmap-mirror"},
		),
		events: broadcaster,
		record: broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "configmap-mirror"}),
	}
	_, err := configMaps.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	})
	if err != nil {
		logger.Error(err, "adding the event handler")
	}
	return c
}

func (c *Controller) enqueue(obj any) {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

// Run waits for the informer's cache, runs workers until ctx is done, then
// shuts the controller down.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		return fmt.Errorf("failed to wait for caches to sync")
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	}
	<-ctx.Done()
	return nil
}

// Shutdown stops the work queue and the event broadcaster.
func (c *Controller) Shutdown() {
	c.queue.ShutDown()
	c.events.Shutdown()
}

func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if err := c.syncHandler(ctx, key); err != nil {
		c.queue.AddRateLimited(key)
		utilruntime.HandleErrorWithContext(ctx, err, "syncing", "key", key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// syncHandler brings the copy of the ConfigMap named by key up to date. It
// reads the copy from the API server, not from a cache, as many upstream
// controllers do before a write.
func (c *Controller) syncHandler(ctx context.Context, key string) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		utilruntime.HandleError(err)
		return nil
	}
	src, err := c.lister.ConfigMaps(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	target := src.Annotations[MirrorAnnotation]
	if target == "" || target == namespace {
		return nil
	}
	want := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   target,
			Name:        name,
			Annotations: map[string]string{SourceAnnotation: key},
		},
		Data: src.Data,
	}
	cms := c.client.CoreV1().ConfigMaps(target)
	got, err := cms.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if _, err := cms.Create(ctx, want, metav1.CreateOptions{}); err != nil {
			return err
		}
		c.record.Eventf(src, corev1.EventTypeNormal, ReasonMirrored, "Copied to %s/%s", target, name)
		return nil
	case err != nil:
		return err
	}
	if got.Annotations[SourceAnnotation] != key {
		c.record.Eventf(src, corev1.EventTypeWarning, ReasonNotOurs, "%s/%s exists and is not a copy of %s", target, name, key)
		return nil
	}
	if maps.Equal(got.Data, src.Data) {
		return nil
	}
	got = got.DeepCopy()
	got.Data = src.Data
	if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		return err
	}
	c.record.Eventf(src, corev1.EventTypeNormal, ReasonMirrored, "Updated %s/%s", target, name)
	return nil
}
