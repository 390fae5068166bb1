package checks

import (
	"context"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
)

const (
	// ExportNamespace is the namespace of the ConfigMaps Exporter writes.
	ExportNamespace = "exports"
	// ExportFinalizer is the finalizer Exporter puts on every Deployment.
	ExportFinalizer = "example.ctrltest.dev/export"
)

// Exporter publishes the container images of each Deployment in a
// ConfigMap of the exports namespace, named <namespace>.<name>, one key per
// container. An owner reference cannot cross namespaces, so the garbage
// collector would never delete an export: Exporter first puts a finalizer
// on the Deployment, and deletes the export itself when the Deployment is
// deleted.
//
// It needs two syncs to settle a new Deployment: the first adds the
// finalizer and returns (the update's watch event brings the key back), the
// second creates the export. A test of one sync sees only the finalizer;
// convergence (fixture.Converge, Row.WantObjects) follows it to the end.
type Exporter struct {
	client      kubernetes.Interface
	deployments appslisters.DeploymentLister
	configMaps  corelisters.ConfigMapLister
}

// NewExporter builds an Exporter that reads through the informers' listers
// and writes through client.
func NewExporter(client kubernetes.Interface, deployments appsinformers.DeploymentInformer, configMaps coreinformers.ConfigMapInformer) *Exporter {
	return &Exporter{client: client, deployments: deployments.Lister(), configMaps: configMaps.Lister()}
}

// ExportName is the name of the export of the Deployment namespace/name.
func ExportName(namespace, name string) string { return namespace + "." + name }

// Export is the ConfigMap Exporter keeps for d.
func Export(d *appsv1.Deployment) *corev1.ConfigMap {
	images := map[string]string{}
	for _, c := range d.Spec.Template.Spec.Containers {
		images[c.Name] = c.Image
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ExportNamespace, Name: ExportName(d.Namespace, d.Name)},
		Data:       images,
	}
}

// Sync brings the export of the Deployment named by key ("namespace/name")
// in line with it, one step at a time.
func (c *Exporter) Sync(ctx context.Context, key string) error {
	d, err := cachedDeployment(c.deployments, key)
	if d == nil || err != nil {
		return err
	}
	namespace := d.Namespace
	deployments := c.client.AppsV1().Deployments(namespace)
	exports := c.client.CoreV1().ConfigMaps(ExportNamespace)
	exportName := ExportName(namespace, d.Name)

	if d.DeletionTimestamp != nil {
		if !slices.Contains(d.Finalizers, ExportFinalizer) {
			return nil
		}
		if err := exports.Delete(ctx, exportName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		d = d.DeepCopy()
		d.Finalizers = slices.DeleteFunc(d.Finalizers, func(f string) bool { return f == ExportFinalizer })
		_, err := deployments.Update(ctx, d, metav1.UpdateOptions{})
		return err
	}

	// Step 1: the finalizer, before there is anything to clean up.
	if !slices.Contains(d.Finalizers, ExportFinalizer) {
		d = d.DeepCopy()
		d.Finalizers = append(d.Finalizers, ExportFinalizer)
		_, err := deployments.Update(ctx, d, metav1.UpdateOptions{})
		return err // the update's event brings the key back for step 2
	}

	// Step 2: the export.
	want := Export(d)
	cm, err := c.configMaps.ConfigMaps(ExportNamespace).Get(exportName)
	switch {
	case apierrors.IsNotFound(err):
		_, err = exports.Create(ctx, want, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	case maps.Equal(cm.Data, want.Data):
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = want.Data
	_, err = exports.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}
