package golden

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/records"
)

func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a b", "a/b", `a\b`, "TestFoo", "x#01", "é", "-0123456789abcdef"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		sa := SanitizeName(a)
		if sa == "" || sa == "." || sa == ".." || strings.HasPrefix(sa, ".") {
			t.Fatalf("SanitizeName(%q) = %q", a, sa)
		}
		if strings.ContainsAny(sa, `/\:*?"<>|`) || strings.ContainsRune(sa, 0) {
			t.Fatalf("SanitizeName(%q) = %q holds a separator or odd character", a, sa)
		}
		if len(sa) > 117 {
			t.Fatalf("SanitizeName(%q) is %d bytes long", a, len(sa))
		}
		if SanitizeName(a) != sa {
			t.Fatal("not deterministic")
		}
		if a != b && SanitizeName(b) == sa {
			t.Fatalf("SanitizeName(%q) = SanitizeName(%q) = %q", a, b, sa)
		}
		// '/' separates subtests in t.Name(); any other name is one file.
		if p := filepath.ToSlash(Path("TestF/" + a)); !strings.Contains(a, "/") && (!strings.HasPrefix(p, "testdata/TestF/") || strings.Count(p, "/") != 2) {
			t.Fatalf("Path of subtest %q = %q", a, p)
		}
	})
}

func FuzzRender(f *testing.F) {
	f.Add("default/web", []byte(`{"spec":{"replicas":3}}`), "scaled", "web")
	f.Add("", []byte("a: [1, 2]\n"), "\r\nline", "x")
	f.Add("k", []byte("\xff\x00"), "", "")
	f.Fuzz(func(t *testing.T, key string, patch []byte, message, name string) {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: map[string]string{"l": message}}}
		s := Sync{
			Key: key,
			Actions: []actions.Action{
				actions.Patch(obj, types.MergePatchType, patch),
				{Verb: "update", Name: name, Object: obj},
			},
			Events: []records.Event{{Object: records.ObjectRef{Namespace: "ns", Name: name}, Message: message}},
			Err:    errors.New(message),
		}
		got, err := Render(s)
		if err != nil {
			t.Skip() // an object the converter cannot handle is reported, not rendered
		}
		again, _ := Render(s)
		if !bytes.Equal(got, again) {
			t.Fatal("Render is not deterministic")
		}
		if len(got) == 0 || got[len(got)-1] != '\n' {
			t.Fatalf("Render output does not end in a newline: %q", got)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(got, &doc); err != nil {
			t.Fatalf("Render output is not YAML: %v\n%s", err, got)
		}
		// Invalid UTF-8 is rendered with replacement characters, as JSON does.
		if utf8.ValidString(key) && doc["key"] != key {
			t.Fatalf("key round-trips as %q, want %q", doc["key"], key)
		}
	})
}
