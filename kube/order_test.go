package kube_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// kube.Server() with fixture.WithDefaulting and fixture.WithValidation:
// the defaulting functions run in the order of the options, and the
// validations' findings add up in that order.
func TestServerWithOtherHooks(t *testing.T) {
	// replicas records what the test's defaulting function saw.
	var replicas []*int32
	see := fixture.WithDefaulting(func(obj runtime.Object) {
		if d, ok := obj.(*appsv1.Deployment); ok {
			replicas = append(replicas, d.Spec.Replicas)
		}
	})
	noTeam := fixture.WithValidation(func(v fixture.Validation) field.ErrorList {
		if v.Object.(metav1.ObjectMetaAccessor).GetObjectMeta().GetAnnotations()["team"] == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key("team"), "")}
		}
		return nil
	})
	for _, tc := range []struct {
		name         string
		opts         []fixture.Option
		wantReplicas []*int32
		wantErr      string
	}{{
		name:         "the test's hooks first",
		opts:         []fixture.Option{see, noTeam, kube.Server()},
		wantReplicas: []*int32{nil},
		wantErr:      `Deployment.apps "Web" is invalid: [metadata.annotations[team]: Required value, metadata.name: Invalid value: "Web": ` + nameMsg + `]`,
	}, {
		name:         "kube.Server() first",
		opts:         []fixture.Option{kube.Server(), see, noTeam},
		wantReplicas: []*int32{ptr.To[int32](1)},
		wantErr:      `Deployment.apps "Web" is invalid: [metadata.name: Invalid value: "Web": ` + nameMsg + `, metadata.annotations[team]: Required value]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			replicas = nil
			f := fixture.New(t, tc.opts...)
			c := f.Kube()
			res := fixture.Sync(f, func(ctx context.Context, _ string) error {
				_, err := c.AppsV1().Deployments("default").Create(ctx, deployment("Web"), metav1.CreateOptions{})
				return err
			}, "default/Web")
			if res.Err == nil || res.Err.Error() != tc.wantErr {
				t.Errorf("error %v\nwant %s", res.Err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantReplicas, replicas); diff != "" {
				t.Errorf("replicas the test's defaulting saw (-want +got):\n%s", diff)
			}
		})
	}
}
