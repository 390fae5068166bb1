package crdschema

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/crd"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// Content is shaped like external-snapshotter's VolumeSnapshotContent: a
// pointer field whose json tag has no omitempty (SourceVolumeMode), so a
// nil one encodes as null; the crd module's testdata/contents.yaml is its
// CRD, where the field is a string, not nullable, with no default.
type Content struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ContentSpec    `json:"spec"`
	Status            *ContentStatus `json:"status,omitempty"`
}

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
	if in.Spec.SourceVolumeMode != nil {
		out.Spec.SourceVolumeMode = ptr.To(*in.Spec.SourceVolumeMode)
	}
	if in.Spec.SnapshotClassName != nil {
		out.Spec.SnapshotClassName = ptr.To(*in.Spec.SnapshotClassName)
	}
	if in.Status != nil {
		out.Status = &ContentStatus{}
		if in.Status.ReadyToUse != nil {
			out.Status.ReadyToUse = ptr.To(*in.Status.ReadyToUse)
		}
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

var contentGV = schema.GroupVersion{Group: "crd.ctrltest.dev", Version: "v1"}

var contentTypes = fixture.WithTypes(func(s *runtime.Scheme) error {
	s.AddKnownTypes(contentGV, &Content{}, &ContentList{})
	metav1.AddToGroupVersion(s, contentGV)
	return nil
})

func newContent(name string, mode *string) *Content {
	return &Content{
		TypeMeta:   metav1.TypeMeta{APIVersion: contentGV.String(), Kind: "Content"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       ContentSpec{Driver: "hostpath.csi.k8s.io", SourceVolumeMode: mode},
	}
}

// createContent creates c in the key's namespace with the body a typed
// client sends (the Go type's encoding, nulls included).
func createContent(c *Content) func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	return func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
		return func(ctx context.Context, key cache.ObjectName) error {
			body, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c)
			if err != nil {
				return err
			}
			u := &unstructured.Unstructured{Object: body}
			u.SetNamespace("")
			_, err = f.Dynamic().Resource(contentGV.WithResource("contents")).Namespace(key.Namespace).Create(ctx, u, metav1.CreateOptions{})
			return err
		}
	}
}

// kube-apiserver prunes the null of a field that is neither nullable nor
// defaulted before it validates, on a create and on a seed; the fixture's
// world with the crd module's option stores the same object, where it once
// answered 422 "spec.sourceVolumeMode: Invalid value: "null"". A set
// value is still validated on both sides.
func TestNullOfAPointerWithoutOmitempty(t *testing.T) {
	srv := parity.Shared(t)
	cases := []struct {
		name    string
		wire    func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName]
		objects []runtime.Object
		wantErr string
	}{{
		name: "a create whose sourceVolumeMode is null",
		wire: createContent(newContent("web", nil)),
	}, {
		name: "a seed whose sourceVolumeMode is null",
		wire: func(*fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
			return func(context.Context, cache.ObjectName) error { return nil }
		},
		objects: []runtime.Object{newContent("web", nil)},
	}, {
		name:    "a create whose sourceVolumeMode is not in the enum",
		wire:    createContent(newContent("web", ptr.To("Sideways"))),
		wantErr: `spec.sourceVolumeMode: Unsupported value: "Sideways"`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			row := fixture.Row{Name: tc.name, Objects: tc.objects, Key: "default/web"}
			table := fixture.Table[cache.ObjectName]{Wire: tc.wire, Options: []fixture.Option{contentTypes, crd.Files(t, contents)}}
			rep := parity.Compare(t, srv, table, row)
			t.Logf("%s", rep)
			if len(rep.Divergences) > 0 {
				t.Errorf("the fakes diverge from the server:\n%s", rep)
			}
			for side, err := range map[string]error{"fakes": rep.Fakes.Err, "server": rep.Server.Err} {
				switch {
				case tc.wantErr == "" && err != nil:
					t.Errorf("%s: error %v; want none", side, err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("%s: error %v; want one containing %q", side, err, tc.wantErr)
				}
			}
		})
	}
}
