package owner

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Controller keeps one ReplicaSet per Deployment.
type Controller struct {
	client            kubernetes.Interface
	deploymentsLister appslisters.DeploymentLister
	replicaSetsLister appslisters.ReplicaSetLister
}

// New builds a Controller that reads through the informers' listers and
// writes through client.
func New(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, replicaSets appsinformers.ReplicaSetInformer) *Controller {
	return &Controller{
		client:            client,
		deploymentsLister: deployments.Lister(),
		replicaSetsLister: replicaSets.Lister(),
	}
}

// ReplicaSetName is the name of the ReplicaSet the controller creates for d.
func ReplicaSetName(d *appsv1.Deployment) string { return d.Name + "-rs" }

// Sync brings the ReplicaSets of the Deployment named by key in line with
// it, then its status in line with them. A nil error means the key need not
// be retried.
func (c *Controller) Sync(ctx context.Context, key cache.ObjectName) error {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "deployment", key)
	d, err := c.deploymentsLister.Deployments(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		logger.V(2).Info("Deployment no longer exists; nothing to do")
		return nil
	}
	if err != nil {
		return err
	}

	owned, err := c.controlledReplicaSets(d)
	if err != nil {
		return err
	}
	replicaSets := c.client.AppsV1().ReplicaSets(d.Namespace)

	var rs *appsv1.ReplicaSet
	if len(owned) == 0 {
		logger.V(4).Info("Creating ReplicaSet", "replicaSet", ReplicaSetName(d))
		if rs, err = replicaSets.Create(ctx, newReplicaSet(d), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating ReplicaSet for %s: %w", key, err)
		}
	} else {
		rs = owned[0]
		if want := replicasOr1(d.Spec.Replicas); replicasOr1(rs.Spec.Replicas) != want {
			logger.V(4).Info("Scaling ReplicaSet", "replicaSet", klog.KObj(rs), "replicas", want)
			// The lister's object is shared with the informer's cache:
			// change a copy.
			scaled := rs.DeepCopy()
			scaled.Spec.Replicas = &want
			if rs, err = replicaSets.Update(ctx, scaled, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("scaling ReplicaSet %s: %w", scaled.Name, err)
			}
		}
		for _, extra := range owned[1:] {
			logger.V(4).Info("Deleting extra ReplicaSet", "replicaSet", klog.KObj(extra))
			if err := replicaSets.Delete(ctx, extra.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("deleting ReplicaSet %s: %w", extra.Name, err)
			}
		}
	}

	if d.Status.Replicas != rs.Status.Replicas {
		d = d.DeepCopy()
		d.Status.Replicas = rs.Status.Replicas
		if _, err := c.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("updating status of %s: %w", key, err)
		}
	}
	return nil
}

// controlledReplicaSets returns the ReplicaSets d controls, oldest first
// (then by name), so that the one to keep is always the same.
func (c *Controller) controlledReplicaSets(d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	all, err := c.replicaSetsLister.ReplicaSets(d.Namespace).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var owned []*appsv1.ReplicaSet
	for _, rs := range all {
		if metav1.IsControlledBy(rs, d) {
			owned = append(owned, rs)
		}
	}
	slices.SortFunc(owned, func(a, b *appsv1.ReplicaSet) int {
		return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), cmp.Compare(a.Name, b.Name))
	})
	return owned, nil
}

// newReplicaSet returns the ReplicaSet d asks for, controlled by d.
func newReplicaSet(d *appsv1.Deployment) *appsv1.ReplicaSet {
	replicas := replicasOr1(d.Spec.Replicas)
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            ReplicaSetName(d),
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: d.Spec.Selector.DeepCopy(),
			Template: *d.Spec.Template.DeepCopy(),
		},
	}
}

// replicasOr1 returns the replicas a spec asks for: unset means 1, as the
// API server defaults it.
func replicasOr1(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}
