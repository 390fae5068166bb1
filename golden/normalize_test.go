package golden

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"sigs.k8s.io/yaml"

	"github.com/ctrltest/ctrltest/actions"
)

// volatileSync is a sync whose objects carry what changes between runs:
// random owner uids (twice the same, once another), condition timestamps
// from the wall clock, and a generation that must stay.
func volatileSync() Sync {
	owner, other := uuid.NewUUID(), uuid.NewUUID()
	now := metav1.NewTime(time.Now())
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Generation: 3, UID: uuid.NewUUID(),
			Annotations: map[string]string{"example.com/synced-at": now.String()},
			OwnerReferences: []metav1.OwnerReference{
				{Kind: "Foo", Name: "a", UID: owner},
				{Kind: "Foo", Name: "b", UID: other},
				{Kind: "Foo", Name: "c", UID: "fixed-by-the-test"},
			}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 3, Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: "True", LastTransitionTime: now, LastUpdateTime: now, Message: "up " + now.String()},
			{Type: appsv1.DeploymentProgressing, Status: "True"},
		}},
	}
	second := d.DeepCopy()
	second.OwnerReferences = second.OwnerReferences[:1] // the first owner again
	patch := `{"metadata":{"uid":"` + string(other) + `"},"status":{"conditions":[{"type":"Available","lastTransitionTime":"` + now.UTC().Format(time.RFC3339) + `"}]}}`
	return Sync{Key: "default/web", Actions: []actions.Action{
		actions.Update(d),
		actions.Update(second),
		actions.Patch(d, types.MergePatchType, []byte(patch)),
	}}
}

// field returns the value at path in a rendered document.
func field(t *testing.T, doc []byte, path ...any) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		switch p := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[p]
		case int:
			l, _ := v.([]any)
			if p >= len(l) {
				return nil
			}
			v = l[p]
		}
	}
	return v
}

func TestRenderNormalizers(t *testing.T) {
	obj := func(i int, path ...any) []any { return append([]any{"actions", i, "object"}, path...) }
	type check struct {
		path []any
		want any // nil: anything but the placeholder
	}
	cases := []struct {
		name   string
		opts   []Option
		checks []check
		// stable: two runs (other uids, another clock) render the same.
		stable bool
	}{
		{
			name: "defaults",
			checks: []check{
				{obj(0, "metadata", "generation"), float64(3)},
				{obj(0, "status", "observedGeneration"), float64(3)},
				{obj(0, "metadata", "uid"), nil},
				{obj(0, "metadata", "ownerReferences", 0, "uid"), "<uid-1>"},
				{obj(0, "metadata", "ownerReferences", 1, "uid"), "<uid-2>"},
				{obj(0, "metadata", "ownerReferences", 2, "uid"), "fixed-by-the-test"},
				{obj(1, "metadata", "ownerReferences", 0, "uid"), "<uid-1>"},
				{obj(0, "status", "conditions", 0, "lastTransitionTime"), TimePlaceholder},
				{obj(0, "status", "conditions", 0, "lastUpdateTime"), TimePlaceholder},
				{obj(0, "status", "conditions", 1, "lastTransitionTime"), nil},
				{[]any{"actions", 2, "patch", "metadata", "uid"}, "<uid-2>"},
				{[]any{"actions", 2, "patch", "status", "conditions", 0, "lastTransitionTime"}, TimePlaceholder},
			},
		},
		{
			name:   "mask and transform",
			stable: true,
			opts: []Option{
				Mask("metadata", "annotations", "example.com/synced-at"),
				Mask("status", "conditions", "[]", "message"),
				Mask("metadata", "labels", "absent"),
				WithTransform(func(m map[string]any) { m["seen"] = "yes" }),
			},
			checks: []check{
				{obj(0, "metadata", "annotations", "example.com/synced-at"), MaskPlaceholder},
				{obj(0, "status", "conditions", 0, "message"), MaskPlaceholder},
				{obj(0, "metadata", "labels"), nil},
				{obj(0, "seen"), "yes"},
				{[]any{"actions", 2, "patch", "seen"}, "yes"},
				{obj(0, "metadata", "ownerReferences", 0, "uid"), "<uid-1>"},
			},
		},
		{
			name: "keep",
			opts: []Option{KeepUIDs(), actions.KeepConditionTimes()},
			checks: []check{
				{obj(0, "metadata", "ownerReferences", 0, "uid"), nil},
				{obj(0, "status", "conditions", 0, "lastTransitionTime"), nil},
				{obj(0, "metadata", "generation"), float64(3)},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := volatileSync()
			got, err := Render(s, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tc.checks {
				v := field(t, got, c.path...)
				if c.want == nil {
					if s, ok := v.(string); ok && (strings.HasPrefix(s, "<uid-") || s == TimePlaceholder) {
						t.Errorf("%v = %q, want the value as it is", c.path, s)
					}
					continue
				}
				if d := cmp.Diff(c.want, v); d != "" {
					t.Errorf("%v (-want +got):\n%s\n%s", c.path, d, got)
				}
			}
			if tc.stable {
				again, err := Render(volatileSync(), tc.opts...)
				if err != nil {
					t.Fatal(err)
				}
				if d := LineDiff(string(got), string(again)); d != "" {
					t.Errorf("two runs render differently:\n%s", d)
				}
			}
		})
	}
}

func TestPathInDir(t *testing.T) {
	if got, want := filepath.ToSlash(Path("TestFoo/a b", InDir("/tmp/g"))), "/tmp/g/TestFoo/"+SanitizeName("a b")+Suffix; got != want {
		t.Errorf("Path(InDir) = %q, want %q", got, want)
	}
	if Path("TestFoo/x", InDir(Dir), KeepUIDs()) != Path("TestFoo/x") {
		t.Error("Path(name, InDir(Dir)) differs from Path(name)")
	}
}

// An option of one of actions and golden alone is not an option of the
// other (the compiler refuses it where it would do nothing), and
// actions.KeepConditionTimes is an option of both.
func TestOptionsOfEachPackage(t *testing.T) {
	goldenOption := reflect.TypeFor[Option]()
	actionsOption := reflect.TypeFor[actions.Option]()
	for _, o := range []any{actions.Unordered(), actions.Subset(), actions.Options{}} {
		if reflect.TypeOf(o).Implements(goldenOption) {
			t.Errorf("%T, an option of actions, is a golden.Option", o)
		}
	}
	for _, o := range []any{InDir("x"), KeepUIDs(), Mask("metadata")} {
		if reflect.TypeOf(o).Implements(actionsOption) {
			t.Errorf("%T, an option of golden, is an actions.Option", o)
		}
	}
	both := reflect.TypeOf(actions.KeepConditionTimes())
	if !both.Implements(goldenOption) || !both.Implements(actionsOption) {
		t.Error("actions.KeepConditionTimes is not an option of both packages")
	}
}
