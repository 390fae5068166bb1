package actions_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
)

func web(replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To(replicas)},
	}
}

// Recorded client-go actions become values that print as one line each.
func ExampleFromList() {
	client := fake.NewSimpleClientset()
	ctx := context.Background()
	_, _ = client.AppsV1().Deployments("default").Create(ctx, web(1), metav1.CreateOptions{})
	_, _ = client.AppsV1().Deployments("default").UpdateStatus(ctx, web(1), metav1.UpdateOptions{})
	_ = client.AppsV1().Deployments("default").Delete(ctx, "web", metav1.DeleteOptions{})
	for _, a := range actions.FromList(client.Actions()) {
		fmt.Println(a)
	}
	// Output:
	// create apps/v1 deployments default/web
	// update apps/v1 deployments/status default/web
	// delete apps/v1 deployments default/web
}

// Diff is empty exactly when the actions match.
func ExampleDiff() {
	got := []actions.Action{actions.Create(web(1))}
	fmt.Printf("%q\n", actions.Diff([]actions.Action{actions.Create(web(1))}, got))
	fmt.Print(actions.Diff([]actions.Action{actions.Delete(web(1))}, got))
	// Output:
	// ""
	// want: 1 action(s)
	//   [0] delete apps/v1 deployments default/web
	// got: 1 action(s)
	//   [0] create apps/v1 deployments default/web
	// missing (wanted, not made):
	//   want[0] delete apps/v1 deployments default/web
	// unexpected (made, not wanted):
	//   got[0] create apps/v1 deployments default/web
}

// Subset compares only the fields the expected object sets.
func ExampleSubset() {
	got := []actions.Action{actions.Create(web(3))}
	want := []actions.Action{actions.Create(&appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
	})}
	fmt.Println(actions.Equal(want, got))
	fmt.Println(actions.Equal(want, got, actions.Subset()))
	// Output:
	// false
	// true
}
