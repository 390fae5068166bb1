package semantics

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	samplev1alpha1 "github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
	"github.com/ctrltest/ctrltest/parity"
)

// scenario is a run of requests that the resource sequences do not cover
// (selectors, subresources): it reports one line per request, and the
// lines must be the same on the fakes and on the server.
type scenario struct {
	name string
	run  func(s *scenarioRun)
}

// scenarioRun is one run of a scenario, in namespace ns.
type scenarioRun struct {
	t     *testing.T
	f     *fixture.Fixture
	ctx   context.Context
	kube  kubernetes.Interface
	ns    string
	lines []string
}

func (s *scenarioRun) log(format string, args ...any) {
	s.lines = append(s.lines, fmt.Sprintf(format, args...))
}

// must stops the scenario on an error of a request whose answer is not
// what the scenario observes.
func (s *scenarioRun) must(what string, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
}

var scenarios = []scenario{
	{"list field selectors", listFieldSelectors},
	{"watch selectors", watchSelectors},
	{"scale of a Deployment", deploymentScale},
	{"eviction blocked by a budget", func(s *scenarioRun) { eviction(s, 0) }},
	{"eviction allowed by a budget", func(s *scenarioRun) { eviction(s, 1) }},
}

// TestRequests runs every scenario on the fixture's default world and on
// the server; their lines must agree.
func TestRequests(t *testing.T) {
	srv := parity.Shared(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			fakes := runScenario(t, sc)
			server := runScenario(t, sc, adapter.WithServer(srv))
			t.Logf("%s on the fakes:\n  %s", sc.name, strings.Join(fakes, "\n  "))
			if d := cmp.Diff(server, fakes); d != "" {
				t.Errorf("%s: the fakes and the server diverge (-server +fakes):\n%s", sc.name, d)
			}
		})
	}
}

func runScenario(t *testing.T, sc scenario, opts ...fixture.Option) []string {
	t.Helper()
	f := fixture.New(t, append(options(), opts...)...)
	var s *scenarioRun
	sync := func(ctx context.Context, key string) error {
		ns, _, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			return err
		}
		s = &scenarioRun{t: t, f: f, ctx: ctx, kube: f.Kube(), ns: ns}
		sc.run(s)
		return nil
	}
	if res := fixture.Sync(f, sync, "default/requests"); res.Err != nil {
		t.Fatalf("%s: %v", sc.name, res.Err)
	}
	return s.lines
}

func scenarioPod(name, app, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/c:1"}}}}
}

func names(pods []corev1.Pod) string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return "[" + strings.Join(out, " ") + "]"
}

// listFieldSelectors lists pods with each form of field selector, with a
// label selector beside, and with fields the server refuses.
func listFieldSelectors(s *scenarioRun) {
	pods := s.kube.CoreV1().Pods(s.ns)
	for _, p := range []*corev1.Pod{scenarioPod("a", "web", "n1"), scenarioPod("b", "web", "n2"), scenarioPod("c", "api", "n1"), scenarioPod("d", "web", "")} {
		_, err := pods.Create(s.ctx, p, metav1.CreateOptions{})
		s.must("create "+p.Name, err)
	}
	for _, o := range []metav1.ListOptions{
		{FieldSelector: "spec.nodeName=n1"},
		{FieldSelector: "spec.nodeName==n1"},
		{FieldSelector: "spec.nodeName!=n1"},
		{FieldSelector: "spec.nodeName="},
		{FieldSelector: "metadata.name=b"},
		{FieldSelector: "metadata.name!=b,spec.nodeName=n1"},
		{FieldSelector: "status.phase=Pending"},
		{LabelSelector: "app=web", FieldSelector: "spec.nodeName=n1"},
		{FieldSelector: "spec.foo=x"},
	} {
		list, err := pods.List(s.ctx, o)
		if err != nil {
			s.log("list pods labels %q fields %q: %s %s", o.LabelSelector, o.FieldSelector, errText(err), err.Error())
			continue
		}
		s.log("list pods labels %q fields %q: %s", o.LabelSelector, o.FieldSelector, names(list.Items))
	}
	_, err := s.kube.AppsV1().Deployments(s.ns).List(s.ctx, metav1.ListOptions{FieldSelector: "spec.replicas=1"})
	s.log("list deployments fields spec.replicas=1: %s %v", errText(err), err)
	// A custom resource: metadata fields only.
	fooClient := foos.Client(s.f).SamplecontrollerV1alpha1().Foos(s.ns)
	for _, name := range []string{"x", "y"} {
		_, err := fooClient.Create(s.ctx, &samplev1alpha1.Foo{ObjectMeta: objectMeta(name), Spec: samplev1alpha1.FooSpec{DeploymentName: name, Replicas: ptr.To(int32(1))}}, metav1.CreateOptions{})
		s.must("create Foo "+name, err)
	}
	for _, fs := range []string{"metadata.name=x", "metadata.name!=x", "metadata.namespace!=" + s.ns, "spec.deploymentName=x"} {
		list, err := fooClient.List(s.ctx, metav1.ListOptions{FieldSelector: fs})
		fs = strings.ReplaceAll(fs, s.ns, "<namespace>") // the server's namespace differs
		if err != nil {
			s.log("list foos fields %q: %s %s", fs, errText(err), err.Error())
			continue
		}
		var got []string
		for _, item := range list.Items {
			got = append(got, item.Name)
		}
		s.log("list foos fields %q: %v", fs, got)
	}
}

// watchSelectors watches pods with a label selector and with a field
// selector, then writes pods into, within and out of the selections.
func watchSelectors(s *scenarioRun) {
	pods := s.kube.CoreV1().Pods(s.ns)
	_, err := pods.Create(s.ctx, scenarioPod("before", "web", "n1"), metav1.CreateOptions{})
	s.must("create before", err)
	byLabel, err := pods.Watch(s.ctx, metav1.ListOptions{LabelSelector: "app=web"})
	s.must("watch by label", err)
	defer byLabel.Stop()
	byField, err := pods.Watch(s.ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=n1"})
	s.must("watch by field", err)
	defer byField.Stop()
	_, err = pods.Create(s.ctx, scenarioPod("web", "web", "n2"), metav1.CreateOptions{})
	s.must("create web", err)
	_, err = pods.Create(s.ctx, scenarioPod("api", "api", "n1"), metav1.CreateOptions{})
	s.must("create api", err)
	_, err = pods.Patch(s.ctx, "api", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"web"}}}`), metav1.PatchOptions{})
	s.must("label api web", err)
	_, err = pods.Patch(s.ctx, "web", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"api"}}}`), metav1.PatchOptions{})
	s.must("label web api", err)
	err = pods.Delete(s.ctx, "api", metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))})
	s.must("delete api", err)
	// The last event of each watch: the delete of api, which both select.
	s.log("watch app=web: %s", events(s, byLabel, 5))
	s.log("watch spec.nodeName=n1: %s", events(s, byField, 3))
	_, err = pods.Watch(s.ctx, metav1.ListOptions{FieldSelector: "spec.foo=x"})
	s.log("watch fields spec.foo=x: %s %v", errText(err), err)
}

// events reads n events of w (each "TYPE name app"), or what came within
// 10 seconds.
func events(s *scenarioRun, w watch.Interface, n int) string {
	var out []string
	timeout := time.After(10 * time.Second)
	for len(out) < n {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return strings.Join(out, ", ") + " (closed)"
			}
			p, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				out = append(out, string(ev.Type))
				continue
			}
			out = append(out, fmt.Sprintf("%s %s %s", ev.Type, p.Name, p.Labels["app"]))
		case <-timeout:
			return strings.Join(out, ", ") + " (timed out)"
		}
	}
	return strings.Join(out, ", ")
}

// deploymentScale reads and writes a Deployment's scale subresource.
func deploymentScale(s *scenarioRun) {
	deps := s.kube.AppsV1().Deployments(s.ns)
	d := &appsv1.Deployment{ObjectMeta: objectMeta("web"), Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To(int32(2)), Selector: &metav1.LabelSelector{MatchLabels: appLabels()}, Template: podTemplate()}}
	created, err := deps.Create(s.ctx, d, metav1.CreateOptions{})
	s.must("create", err)
	state := func(what string, err error) {
		got, gerr := deps.Get(s.ctx, "web", metav1.GetOptions{})
		s.must("get", gerr)
		rv := "same resourceVersion"
		if got.ResourceVersion != created.ResourceVersion {
			rv = "new resourceVersion"
		}
		created = got
		s.log("%s: %s; replicas %d, generation %d, %s", what, orOK(errText(err)), *got.Spec.Replicas, got.Generation, rv)
	}
	scale, err := deps.GetScale(s.ctx, "web", metav1.GetOptions{})
	s.must("get scale", err)
	s.log("get scale: replicas %d, status replicas %d, selector %q, kind %s, same name and resourceVersion %v",
		scale.Spec.Replicas, scale.Status.Replicas, scale.Status.Selector, scale.Kind, scale.Name == "web" && scale.ResourceVersion == created.ResourceVersion)
	stale := scale.DeepCopy()
	scale.Spec.Replicas = 4
	answer, err := deps.UpdateScale(s.ctx, "web", scale, metav1.UpdateOptions{})
	state("update scale to 4", err)
	s.log("the update's answer: replicas %d, resourceVersion of the deployment %v", answer.Spec.Replicas, answer.ResourceVersion == created.ResourceVersion)
	_, err = deps.UpdateScale(s.ctx, "web", answer, metav1.UpdateOptions{})
	state("update scale, unchanged", err)
	stale.Spec.Replicas = 5
	_, err = deps.UpdateScale(s.ctx, "web", stale, metav1.UpdateOptions{})
	state("update scale from a stale read", err)
	_, err = deps.UpdateScale(s.ctx, "web", newScale("web", 3), metav1.UpdateOptions{})
	state("update scale without resourceVersion", err)
	patched, err := deps.Patch(s.ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), metav1.PatchOptions{}, "scale")
	state("merge patch scale", err)
	if patched != nil {
		s.log("the typed client's answer to the scale patch: name %q, replicas %v, resourceVersion %q", patched.Name, patched.Spec.Replicas, patched.ResourceVersion)
	}
	_, err = deps.UpdateScale(s.ctx, "web", newScale("web", -1), metav1.UpdateOptions{})
	state("update scale to -1", err)
	_, err = deps.GetScale(s.ctx, "missing", metav1.GetOptions{})
	s.log("get scale of a missing deployment: %s", errText(err))
}

// newScale is a Scale without resourceVersion: an unconditional update.
func newScale(name string, replicas int32) *autoscalingv1.Scale {
	return &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
}

// eviction evicts a running, ready pod that a budget allowing allowed
// disruptions selects.
func eviction(s *scenarioRun, allowed int32) {
	pods := s.kube.CoreV1().Pods(s.ns)
	p, err := pods.Create(s.ctx, scenarioPod("web", "web", ""), metav1.CreateOptions{})
	s.must("create the pod", err)
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	_, err = pods.UpdateStatus(s.ctx, p, metav1.UpdateOptions{})
	s.must("the pod's status", err)
	budgets := s.kube.PolicyV1().PodDisruptionBudgets(s.ns)
	b, err := budgets.Create(s.ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		metav1.CreateOptions{})
	s.must("create the budget", err)
	// What the disruption controller would report.
	b.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: b.Generation, DisruptionsAllowed: allowed, CurrentHealthy: 1 + allowed, DesiredHealthy: 1, ExpectedPods: 1}
	_, err = budgets.UpdateStatus(s.ctx, b, metav1.UpdateOptions{})
	s.must("the budget's status", err)
	err = pods.EvictV1(s.ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: s.ns}})
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	s.log("evict: %s %s", orOK(errText(err)), msg)
	_, err = pods.Get(s.ctx, "web", metav1.GetOptions{})
	s.log("the pod after: %s", orOK(errText(err)))
	after, err := budgets.Get(s.ctx, "web", metav1.GetOptions{})
	s.must("get the budget", err)
	_, disrupted := after.Status.DisruptedPods["web"]
	s.log("the budget after: disruptionsAllowed %d, pod in disruptedPods %v", after.Status.DisruptionsAllowed, disrupted)
	err = pods.EvictV1(s.ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "missing", Namespace: s.ns}})
	s.log("evict a missing pod: %s", errText(err))
}
