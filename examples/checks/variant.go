package checks

import (
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
)

// Variant selects the correct version of an example controller or its
// deliberately broken twin.
type Variant int

const (
	// Correct is the controller as it should be written.
	Correct Variant = iota
	// Broken has the one bug its type's documentation describes.
	Broken
)

func (v Variant) String() string {
	if v == Broken {
		return "Broken"
	}
	return "Correct"
}

// cachedDeployment returns the Deployment named by key ("namespace/name")
// from the informer's lister, or nil when it is gone (deleted since it was
// enqueued: nothing is left to do). The object is the cache's: change a
// DeepCopy.
func cachedDeployment(lister appslisters.DeploymentLister, key string) (*appsv1.Deployment, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil, err
	}
	d, err := lister.Deployments(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return d, err
}
