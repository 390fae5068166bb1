package parity

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
)

func web(replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
	}
}

// requests makes the same requests through any clientset; their answers do
// not matter here.
func requests(ctx context.Context, kube kubernetes.Interface) {
	d := kube.AppsV1().Deployments("default")
	_, _ = d.Create(ctx, web(1), metav1.CreateOptions{FieldManager: "ctrl"})
	_, _ = d.Get(ctx, "web", metav1.GetOptions{})
	_, _ = d.UpdateStatus(ctx, web(2), metav1.UpdateOptions{FieldManager: "ctrl"})
	_, _ = d.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{FieldManager: "p"})
	_, _ = d.List(ctx, metav1.ListOptions{})
	_ = d.Delete(ctx, "web", metav1.DeleteOptions{})
	_ = kube.CoreV1().ConfigMaps("default").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	_, _ = kube.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
	// A namespace is cluster-scoped, though its path names it as a
	// namespace's would.
	_ = kube.CoreV1().Namespaces().Delete(ctx, "team", metav1.DeleteOptions{})
	_, _ = kube.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
}

// The recorder turns HTTP requests into the same actions client-go's fakes
// record for the same calls.
func TestRecorderMatchesTheFakes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
	}))
	defer srv.Close()

	rec := NewRecorder(serializer.NewCodecFactory(kubescheme.Scheme).UniversalDeserializer())
	kube, err := kubernetes.NewForConfig(rec.Wrap(&rest.Config{Host: srv.URL}))
	if err != nil {
		t.Fatal(err)
	}
	requests(t.Context(), kube)

	f := fake.NewSimpleClientset()
	requests(t.Context(), f)
	want := actions.FromList(f.Actions())

	got := rec.Actions()
	if d := actions.Diff(want, got); d != "" {
		t.Errorf("recorded HTTP requests differ from the fake's actions (-fake +recorded):\n%s", d)
	}
	for i, w := range want {
		if i < len(got) && got[i].FieldManager != w.FieldManager {
			t.Errorf("action %d (%s): field manager %q, want %q", i, w, got[i].FieldManager, w.FieldManager)
		}
	}
	rec.Reset()
	if len(rec.Actions()) != 0 {
		t.Error("Reset kept actions")
	}
}
