package strict

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// strictCases are objects as the dynamic client sends them: well formed,
// with unknown fields at every depth (the top, inlined type meta, the
// metadata, a list's item, a map's value, under a pointer), with values of
// the wrong shape, and of types with fields the converter decodes through
// JSON (times, quantities, raw extensions, bytes).
var strictCases = []struct{ kind, object string }{
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"a":"b"},"creationTimestamp":"2026-01-01T00:00:00Z",
		"managedFields":[{"manager":"m","operation":"Apply","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},
		"spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},"template":{"spec":{"containers":[{"name":"c","image":"i",
		"resources":{"limits":{"cpu":"1"}},"ports":[{"containerPort":80}]}]}}},"status":{"replicas":1}}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"extra":1}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","nmae":"x"}}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":[{"name":"c"},{"name":"d","imgae":"i"}]}}}}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"In","values":["x"],"valeus":[]}]}}}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","managedFields":[{"manager":"m","extra":true}]}}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":"two"}}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"template":{"spec":{"containers":{"name":"c"}}}}}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":null,"status":{"conditions":[null]}}`},
	{"apps/v1 Deployment", `{"apiVersion":"apps/v1","kind":"Deployment","Kind":"x","metadata":{"name":"web"}}`},
	{"v1 Secret", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"dmFsdWU="},"stringData":{"a":"b"},"type":"Opaque"}`},
	{"v1 Secret", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"not base64!"}}`},
	{"v1 Pod", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"overhead":{"cpu":"1"},"containers":[{"name":"c","env":[{"name":"e","valueFrom":{"fieldRef":{"fieldPath":"x","extra":1}}}]}]}}`},
	{"v1 Pod", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":8080,"path":"/"}}}]}}`},
	{"v1 Pod", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":"http","extra":"x"}}}]}}`},
	{"v1 Pod", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","deletionTimestamp":"not a time"}}`},
	{"apps/v1 ControllerRevision", `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r"},"data":{"anything":{"goes":[1,2]}},"revision":3}`},
	{"v1 ConfigMap", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"},"binaryData":{"b":"AAE="},"immutable":true}`},
	{"v1 ConfigMap", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":1}}`},
	{"batch/v1 CronJob", `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"j"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"containers":[]}},"extra":{}}}}}`},
}

// FromUnstructured answers exactly as the validating converter:
// the same object, the same error; and it takes the fast way for every
// well-formed object of the table.
func TestFromUnstructuredStrict(t *testing.T) {
	for i, c := range strictCases {
		t.Run(fmt.Sprintf("%d %s", i, c.kind), func(t *testing.T) {
			u, gvk, ok := strictInput(c.kind, []byte(c.object))
			if !ok {
				t.Fatalf("a bad case")
			}
			typed, _ := scheme.Scheme.New(gvk)
			if checkStrict(t, u, gvk) == nil && !keyNodeOf(reflect.TypeOf(typed).Elem()).known(u) {
				t.Errorf("the walk is unsure of a well-formed %s: it is converted twice", c.kind)
			}
		})
	}
}

// FuzzFromUnstructuredStrict feeds FromUnstructured any JSON object
// as any of a few kinds.
func FuzzFromUnstructuredStrict(f *testing.F) {
	for _, c := range strictCases {
		f.Add(c.kind, []byte(c.object))
	}
	f.Fuzz(func(t *testing.T, kind string, object []byte) {
		u, gvk, ok := strictInput(kind, object)
		if !ok {
			t.Skip()
		}
		checkStrict(t, u, gvk)
	})
}

// strictInput decodes object as unstructured content of kind ("v1 Pod");
// false when it is not a JSON object or the kind is unknown.
func strictInput(kind string, object []byte) (map[string]any, schema.GroupVersionKind, bool) {
	var apiVersion, k string
	if _, err := fmt.Sscanf(kind, "%s %s", &apiVersion, &k); err != nil {
		return nil, schema.GroupVersionKind{}, false
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || !scheme.Scheme.Recognizes(gv.WithKind(k)) {
		return nil, schema.GroupVersionKind{}, false
	}
	var u map[string]any
	if err := json.Unmarshal(object, &u); err != nil || u == nil {
		return nil, schema.GroupVersionKind{}, false
	}
	return fixNumbers(u).(map[string]any), gv.WithKind(k), true
}

// checkStrict compares FromUnstructured with the validating
// converter on u, converted to gvk; it returns the converter's error.
func checkStrict(t *testing.T, u map[string]any, gvk schema.GroupVersionKind) error {
	t.Helper()
	want, _ := scheme.Scheme.New(gvk)
	got, _ := scheme.Scheme.New(gvk)
	wantErr := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u, want, true)
	gotErr := FromUnstructured(u, got)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%v %v: error %v, want %v", gvk, u, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%v %v: object differs (-want +got):\n%s", gvk, u, cmp.Diff(want, got))
	}
	return wantErr
}

// fixNumbers gives JSON numbers the types of unstructured content: int64
// for integers, float64 otherwise.
func fixNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = fixNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = fixNumbers(x)
		}
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
	}
	return v
}

// tree refers to itself, as a CRD's JSONSchemaProps does.
type tree struct {
	Name  string          `json:"name"`
	Kids  []tree          `json:"kids,omitempty"`
	Next  *tree           `json:"next,omitempty"`
	ByKey map[string]tree `json:"byKey,omitempty"`
}

// The walk follows a type that refers to itself: it knows the keys at
// every depth, and the unknown one.
func TestFromUnstructuredStrictRecursiveType(t *testing.T) {
	for _, c := range []struct {
		object  string
		unknown bool
	}{
		{`{"name":"a","kids":[{"name":"b","next":{"name":"c","byKey":{"k":{"name":"d"}}}}]}`, false},
		{`{"name":"a","kids":[{"name":"b","next":{"name":"c","byKey":{"k":{"name":"d","extra":1}}}}]}`, true},
	} {
		var u map[string]any
		if err := json.Unmarshal([]byte(c.object), &u); err != nil {
			t.Fatal(err)
		}
		var want tree
		wantErr := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u, &want, true)
		if (wantErr != nil) != c.unknown {
			t.Fatalf("%s: the converter answers %v", c.object, wantErr)
		}
		if got := keyNodeOf(reflect.TypeFor[tree]()).known(u); got == c.unknown {
			t.Errorf("%s: known = %v, want %v", c.object, got, !c.unknown)
		}
	}
}
