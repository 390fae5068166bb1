package kube

import (
	"context"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

// envWriteFingerprints, set to 1, makes TestFingerprints write
// fingerprints.go from the types linked into the test.
const envWriteFingerprints = "CTRLTEST_WRITE_FINGERPRINTS"

// fingerprintsFile is fingerprints.go as the linked k8s.io/api makes it.
func fingerprintsFile() []byte {
	var kinds []string
	now := map[string]string{}
	for gk := range table() {
		for _, gv := range legacyscheme.Scheme.PrioritizedVersionsForGroup(gk.Group) {
			gvk := gv.WithKind(gk.Kind)
			if !served(gvk) {
				continue
			}
			obj, err := legacyscheme.Scheme.New(gvk)
			if err != nil {
				continue
			}
			kinds = append(kinds, gvk.String())
			now[gvk.String()] = fingerprintOf(reflect.TypeOf(obj))
		}
	}
	slices.Sort(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, `package kube

// fingerprints are the fingerprints (fingerprintOf) of the served versions
// of the covered kinds in k8s.io/api %s, by kind (its GroupVersionKind's String).
// Written by TestFingerprints (%s=1); do not edit.
var fingerprints = map[string]string{
`, apiVersion, envWriteFingerprints)
	for _, k := range kinds {
		fmt.Fprintf(&b, "\t%q: %q,\n", k, now[k])
	}
	b.WriteString("}\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return src
}

// fingerprints.go is the types of the k8s.io/api the module requires
// (apiVersion, TestVersions): a k8s.io/api bump must rewrite it.
func TestFingerprints(t *testing.T) {
	want := fingerprintsFile()
	if os.Getenv(envWriteFingerprints) == "1" {
		tmp := filepath.Join(".", ".fingerprints.go.tmp")
		if err := os.WriteFile(tmp, want, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, "fingerprints.go"); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile("fingerprints.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("fingerprints.go is not the linked k8s.io/api's; after a k8s.io/api bump, write it: %s=1 go test -run TestFingerprints .", envWriteFingerprints)
	}
	if len(fingerprints) < len(table()) {
		t.Errorf("%d fingerprints for %d kinds", len(fingerprints), len(table()))
	}
}

// The fingerprint changes with a field, its name or its type.
func TestFingerprintOf(t *testing.T) {
	type spec struct {
		Replicas *int32 `json:"replicas,omitempty"`
	}
	type a struct {
		metav1.TypeMeta `json:",inline"`
		Spec            spec `json:"spec"`
	}
	type renamed struct {
		metav1.TypeMeta `json:",inline"`
		Spec            struct {
			Replicas *int32 `json:"count,omitempty"`
		} `json:"spec"`
	}
	type added struct {
		metav1.TypeMeta `json:",inline"`
		Spec            struct {
			Replicas *int32 `json:"replicas,omitempty"`
			Paused   bool   `json:"paused,omitempty"`
		} `json:"spec"`
	}
	type retyped struct {
		metav1.TypeMeta `json:",inline"`
		Spec            struct {
			Replicas *int64 `json:"replicas,omitempty"`
		} `json:"spec"`
	}
	base := fingerprintOf(reflect.TypeFor[a]())
	for name, typ := range map[string]reflect.Type{"renamed": reflect.TypeFor[renamed](), "added": reflect.TypeFor[added](), "retyped": reflect.TypeFor[retyped]()} {
		if fingerprintOf(typ) == base {
			t.Errorf("%s: same fingerprint as the original", name)
		}
	}
	if fingerprintOf(reflect.TypeFor[a]()) != base {
		t.Errorf("the fingerprint is not stable")
	}
}

// A Deployment whose Go type is not k8s.io/api v0.37.2's (here: the
// expected fingerprint is another) is refused, naming both versions: a
// seed fails the test, never a panic.
func TestSkewIsRefused(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	other := map[string]string{gvk.String(): "another release's"}
	err := skew(gvk, other)
	const want = `apiVersion: Invalid value: "apps/v1": kube.Server(): the Go type of apps/v1 Deployment is not k8s.io/api v0.37.2's, which k8s.io/kubernetes v1.37.1 (the kube module's) is built for`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("skew: %v; want %q", err, want)
	}
	if err := skew(gvk, fingerprints); err != nil {
		t.Errorf("skew with the module's own k8s.io/api: %v", err)
	}
	rec := tbtest.Run(t, func(t testing.TB) {
		s := server{resources: resources(), fingerprints: other}
		f := fixture.New(t, s.option(), fixture.WithObjects(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}))
		fixture.Sync(f, func(context.Context, string) error { return nil }, "default/web")
	})
	if !rec.Failed() || !strings.Contains(rec.String(), want) || strings.Contains(rec.String(), "panic") {
		t.Errorf("failed %v, messages:\n%s\nwant one containing %q", rec.Failed(), rec, want)
	}
}
