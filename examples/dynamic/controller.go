package dynamic

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

const (
	// TeamLabel is the label of a namespace that names the team owning it.
	TeamLabel = "example.ctrltest.dev/team"
	// TeamAnnotation is the annotation TeamAnnotator keeps on every object
	// of a namespace with a team: the team's name.
	TeamAnnotation = "example.ctrltest.dev/team"
)

var namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// TeamAnnotator keeps TeamAnnotation on the objects of one resource equal
// to their namespace's TeamLabel, removing it where the namespace has
// none.
type TeamAnnotator struct {
	resource   schema.GroupVersionResource
	client     dynamic.NamespaceableResourceInterface
	objects    cache.GenericLister
	namespaces cache.GenericLister
}

// New builds a TeamAnnotator for resource, reading the objects through
// objects' informer and the namespaces through meta's, and writing through
// client.
func New(client dynamic.Interface, resource schema.GroupVersionResource, objects dynamicinformer.DynamicSharedInformerFactory, meta metadatainformer.SharedInformerFactory) *TeamAnnotator {
	return &TeamAnnotator{
		resource:   resource,
		client:     client.Resource(resource),
		objects:    objects.ForResource(resource).Lister(),
		namespaces: meta.ForResource(namespaces).Lister(),
	}
}

// Sync brings the annotation of the object named by key
// ("namespace/name") in line with its namespace's team.
func (c *TeamAnnotator) Sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	cached, err := c.objects.ByNamespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil // deleted since it was queued
	}
	if err != nil {
		return err
	}
	obj, ok := cached.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("%v %s: the informer holds a %T", c.resource, key, cached)
	}
	team := ""
	if nsObj, err := c.namespaces.Get(ns); err == nil {
		if m, ok := nsObj.(metav1.Object); ok {
			team = m.GetLabels()[TeamLabel]
		}
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	current, annotated := obj.GetAnnotations()[TeamAnnotation]
	var value any // null removes the annotation
	switch {
	case team != "" && current != team:
		value = team
	case team == "" && annotated:
	default:
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{TeamAnnotation: value}}})
	if err != nil {
		return err
	}
	_, err = c.client.Namespace(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}
