package crd

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
	"github.com/ctrltest/ctrltest/tbtest"
)

// Content is shaped like external-snapshotter's VolumeSnapshotContent:
// pointer fields whose json tags have no omitempty, so that a nil one is
// sent as null (testdata/contents.yaml is its CRD).
type Content struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ContentSpec    `json:"spec"`
	Status            *ContentStatus `json:"status,omitempty"`
}

// ContentSpec's SourceVolumeMode is not nullable and has no default in the
// CRD; SnapshotClassName is nullable.
type ContentSpec struct {
	Driver            string  `json:"driver"`
	DeletionPolicy    string  `json:"deletionPolicy,omitempty"`
	SourceVolumeMode  *string `json:"sourceVolumeMode"`
	SnapshotClassName *string `json:"snapshotClassName"`
}

type ContentStatus struct {
	ReadyToUse *bool `json:"readyToUse,omitempty"`
}

type ContentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Content `json:"items"`
}

func (in *Content) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.SourceVolumeMode = copyPtr(in.Spec.SourceVolumeMode)
	out.Spec.SnapshotClassName = copyPtr(in.Spec.SnapshotClassName)
	if in.Status != nil {
		out.Status = &ContentStatus{ReadyToUse: copyPtr(in.Status.ReadyToUse)}
	}
	return &out
}

func (in *ContentList) DeepCopyObject() runtime.Object {
	out := *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	out.Items = make([]Content, len(in.Items))
	for i := range in.Items {
		out.Items[i] = *in.Items[i].DeepCopyObject().(*Content)
	}
	return &out
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

var contentGV = schema.GroupVersion{Group: "crd.ctrltest.dev", Version: "v1"}

func addContents(s *runtime.Scheme) error {
	s.AddKnownTypes(contentGV, &Content{}, &ContentList{})
	metav1.AddToGroupVersion(s, contentGV)
	return nil
}

var contents = fixture.WithTypes(addContents)

const contentsManifest = "testdata/contents.yaml"

func newContent(name string, mode *string) *Content {
	return &Content{
		TypeMeta:   metav1.TypeMeta{APIVersion: contentGV.String(), Kind: "Content"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       ContentSpec{Driver: "hostpath.csi.k8s.io", SourceVolumeMode: mode},
	}
}

// A typed create or seed of a Go type whose nil pointer encodes as null
// (no omitempty) is what kube-apiserver stores: the server prunes the null
// of a field that is not nullable and has no default before it validates
// (apiextensions-apiserver's schema coercer, then defaulting, then the
// strategy's validation), and keeps the null of a nullable one.
func TestNullOfAPointerWithoutOmitempty(t *testing.T) {
	gvr := contentGV.WithResource("contents")
	var created, viaDynamic, bad error
	f := fixture.New(t, contents, Files(t, contentsManifest),
		fixture.WithObjects(newContent("seeded", nil)))
	fixture.Sync(f, func(ctx context.Context, _ string) error {
		_, created = adapter.Invoke(f, clienttesting.NewCreateAction(gvr, "default", newContent("created", nil)))
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(newContent("dynamic", nil))
		if err != nil {
			return err
		}
		if v, ok := u["spec"].(map[string]any)["sourceVolumeMode"]; !ok || v != nil {
			t.Fatalf("the Go type encodes sourceVolumeMode as %v; the test needs a null", v)
		}
		_, viaDynamic = f.Dynamic().Resource(gvr).Namespace("default").Create(ctx, &unstructured.Unstructured{Object: u}, metav1.CreateOptions{})
		_, bad = adapter.Invoke(f, clienttesting.NewCreateAction(gvr, "default", newContent("sideways", ptr.To("Sideways"))))
		return nil
	}, "default/seeded")
	if created != nil || viaDynamic != nil {
		t.Errorf("a create with sourceVolumeMode null: typed %v, dynamic %v; want both stored, as the server stores them", created, viaDynamic)
	}
	for _, name := range []string{"seeded", "created", "dynamic"} {
		got, ok := f.Object(newContent(name, nil)).(*Content)
		if !ok {
			t.Errorf("Content %q was not stored", name)
			continue
		}
		if got.Spec.SourceVolumeMode != nil || got.Spec.DeletionPolicy != "Delete" {
			t.Errorf("stored Content %q: sourceVolumeMode %v, deletionPolicy %q; want nil and the default, Delete", name, got.Spec.SourceVolumeMode, got.Spec.DeletionPolicy)
		}
	}
	// The field is still validated when it is set.
	if want := `spec.sourceVolumeMode: Unsupported value: "Sideways": supported values: "Filesystem", "Block"`; !apierrors.IsInvalid(bad) || !strings.Contains(bad.Error(), want) {
		t.Errorf("a create with sourceVolumeMode Sideways: %v; want a 422 containing %q", bad, want)
	}
}

// The same null on an update and a status update: the stored object (old)
// and the new one are both read as the server holds them.
func TestNullOfAPointerWithoutOmitemptyOnUpdate(t *testing.T) {
	gvr := contentGV.WithResource("contents")
	f := fixture.New(t, contents, Files(t, contentsManifest), fixture.WithObjects(newContent("web", nil)))
	res := fixture.Sync(f, func(ctx context.Context, _ string) error {
		c := f.Object(newContent("web", nil)).(*Content)
		c.Spec.Driver = "other.csi.k8s.io"
		if _, err := adapter.Invoke(f, clienttesting.NewUpdateAction(gvr, "default", c)); err != nil {
			return err
		}
		c = f.Object(newContent("web", nil)).(*Content)
		c.Status = &ContentStatus{ReadyToUse: ptr.To(true)}
		_, err := adapter.Invoke(f, clienttesting.NewUpdateSubresourceAction(gvr, "status", "default", c))
		return err
	}, "default/web")
	if res.Err != nil {
		t.Errorf("an update of a Content with sourceVolumeMode null: %v; want it stored", res.Err)
	}
}

// Definitions.Validate on a typed object validates what the server would
// decode from its encoding, also when called directly.
func TestValidateTypedNull(t *testing.T) {
	defs, err := Load(contentsManifest)
	if err != nil {
		t.Fatal(err)
	}
	if errs := defs.Validate(newContent("web", nil), nil, ""); len(errs) > 0 {
		t.Errorf("Validate of a Content with sourceVolumeMode nil: %v; want none", errs)
	}
	// A seed the server would refuse still fails, with the server's reason.
	rec := tbtest.Run(t, func(t testing.TB) {
		f := fixture.New(t, contents, Files(t, contentsManifest), fixture.WithObjects(newContent("web", ptr.To("Sideways"))))
		fixture.Sync(f, func(context.Context, string) error { return nil }, "default/web")
	})
	if want := `the API server would refuse this seed: Content.crd.ctrltest.dev "web" is invalid: spec.sourceVolumeMode: Unsupported value: "Sideways"`; !rec.Failed() || !strings.Contains(rec.String(), want) {
		t.Errorf("failed %v, messages:\n%s\nwant one containing %q", rec.Failed(), rec, want)
	}
}
