package golden

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/records"
)

// recordingTB records failures instead of reporting them.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// inTempDir runs the test from a fresh directory holding a go.mod.
func inTempDir(t *testing.T) string {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("go.mod", []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// noUpdate turns updating off for the test, whatever the run asked for.
func noUpdate(t *testing.T) {
	t.Setenv(EnvUpdate, "")
	old := updateFlag.Value.String()
	if err := updateFlag.Value.Set("false"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = updateFlag.Value.Set(old) })
}

func TestAssertFile(t *testing.T) {
	inTempDir(t)
	noUpdate(t)
	path := "testdata/TestX/row.golden.yaml"
	rec := &recordingTB{TB: t}

	// Missing: fails with the command that creates it, and creates nothing.
	if AssertFile(rec, path, []byte("a: 1\n")) {
		t.Error("missing file: Assert passed")
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], path+" does not exist") ||
		!strings.Contains(rec.errors[0], "go test . -run '^TestAssertFile$' -update") {
		t.Errorf("missing file: errors = %q", rec.errors)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file was created: %v", err)
	}

	// Update writes it (and its directories).
	t.Setenv(EnvUpdate, "1")
	rec.errors = nil
	if !AssertFile(rec, path, []byte("a: 1")) || len(rec.errors) != 0 {
		t.Fatalf("update: %q", rec.errors)
	}
	if data, _ := os.ReadFile(path); string(data) != "a: 1\n" {
		t.Errorf("written file = %q, want a trailing newline added", data)
	}
	t.Setenv(EnvUpdate, "0")

	// Match, also against CRLF line endings.
	if err := os.WriteFile(path, []byte("a: 1\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !AssertFile(rec, path, []byte("a: 1\n")) || len(rec.errors) != 0 {
		t.Errorf("CRLF file: %q", rec.errors)
	}

	// Mismatch: a line diff and the command.
	if AssertFile(rec, path, []byte("a: 2\n")) {
		t.Error("mismatch: Assert passed")
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "-a: 1\n+a: 2") || !strings.Contains(rec.errors[0], "-update") {
		t.Errorf("mismatch: errors = %q", rec.errors)
	}

	// Corrupt: the path and the parse error.
	rec.errors = nil
	if err := os.WriteFile(path, []byte("a: [1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	AssertFile(rec, path, []byte("a: 1\n"))
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], path+" is not valid YAML") || !strings.Contains(rec.errors[0], "yaml:") {
		t.Errorf("corrupt: errors = %q", rec.errors)
	}
}

func TestWriteFileIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden.yaml")
	if err := WriteFile(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	// A directory where the file should be makes the rename fail: the
	// temporary file must not be left behind, nor anything else changed.
	bad := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(bad, "y.golden.yaml", "occupied"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(bad, "y.golden.yaml"), []byte("new\n")); err == nil {
		t.Error("WriteFile over a directory: no error")
	}
	entries, _ := os.ReadDir(bad)
	if len(entries) != 1 {
		t.Errorf("after a failed write, %s holds %d entries, want 1", bad, len(entries))
	}
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Errorf("untouched file changed: %q", data)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, %v; want 0644", info.Mode(), err)
	}
}

func TestStale(t *testing.T) {
	inTempDir(t)
	noUpdate(t)
	for _, p := range []string{"testdata/TestA/x.golden.yaml", "testdata/TestB.golden.yaml", "testdata/cases/c.yaml"} {
		if err := WriteFile(p, []byte("a: 1\n")); err != nil {
			t.Fatal(err)
		}
	}
	rec := &recordingTB{TB: t}
	AssertFile(rec, "testdata/TestA/x.golden.yaml", []byte("a: 1\n"))
	stale, err := Stale()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"testdata/TestB.golden.yaml"}; strings.Join(stale, ",") != strings.Join(want, ",") {
		t.Errorf("Stale() = %q, want %q", stale, want)
	}
	// A package without testdata has nothing stale.
	inTempDir(t)
	if stale, err := Stale(); err != nil || len(stale) != 0 {
		t.Errorf("no testdata: %q, %v", stale, err)
	}
}

func TestUpdateFlagDefinedOnce(t *testing.T) {
	if again := defineUpdateFlag(); again != updateFlag {
		t.Error("defineUpdateFlag defined -update a second time")
	}
	noUpdate(t)
	if Updating() {
		t.Error("Updating() without -update or " + EnvUpdate)
	}
	t.Setenv(EnvUpdate, "true")
	if !Updating() {
		t.Error("Updating() ignores " + EnvUpdate)
	}
}

func TestPath(t *testing.T) {
	tests := map[string]string{
		"TestFoo":                    "testdata/TestFoo.golden.yaml",
		"TestFoo/creates_deployment": "testdata/TestFoo/creates_deployment.golden.yaml",
		"TestFoo/a/b":                "testdata/TestFoo/a/b.golden.yaml",
	}
	for name, want := range tests {
		if got := filepath.ToSlash(Path(name)); got != want {
			t.Errorf("Path(%q) = %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"TestX/..", "TestX/../../etc", "/abs", "TestX/.hidden", `TestX/a\b`, "TestX/"} {
		p := filepath.ToSlash(Path(name))
		if !strings.HasPrefix(p, "testdata/") || strings.Contains(p, "/../") || strings.Contains(p, "/./") || strings.Contains(p, `\`) {
			t.Errorf("Path(%q) = %q escapes or is unsafe", name, p)
		}
	}
}

func TestSanitizeNameInjective(t *testing.T) {
	names := []string{"a b", "a_b", "a/b", "a.b", ".a", "_a", "", "_", "a#01", "a_01", strings.Repeat("x", 150), strings.Repeat("x", 151)}
	seen := map[string]string{}
	for _, n := range names {
		s := SanitizeName(n)
		if prev, dup := seen[s]; dup {
			t.Errorf("SanitizeName(%q) = SanitizeName(%q) = %q", n, prev, s)
		}
		seen[s] = n
	}
	// A kept name that looks hashed is hashed again.
	h := SanitizeName("a b")
	if SanitizeName(h) == h {
		t.Errorf("SanitizeName(%q) kept a hashed-looking name", h)
	}
}

func TestRender(t *testing.T) {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", ResourceVersion: "7", UID: "u",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)},
	}
	s := Sync{
		Key: "default/web",
		Actions: []actions.Action{
			actions.Create(d).WithFieldManager("ctrl"),
			actions.Patch(d, types.MergePatchType, []byte(`{"spec":{"replicas":3}}`)),
			actions.Patch(d, types.JSONPatchType, []byte(`not json`)),
		},
		Events:   []records.Event{{Object: records.ObjectRef{Kind: "Deployment", Namespace: "default", Name: "web"}, Type: "Normal", Reason: "Scaled", Message: "scaled"}},
		Enqueued: []string{"add default/web"},
		Err:      errors.New("boom"),
		Kind: func(runtime.Object) (schema.GroupVersionKind, bool) {
			return appsv1.SchemeGroupVersion.WithKind("Deployment"), true
		},
	}
	got, err := Render(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `actions:
- apiVersion: apps/v1
  fieldManager: ctrl
  name: web
  namespace: default
  object:
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: default
    spec:
      replicas: 2
      selector: null
      strategy: {}
      template:
        metadata: {}
        spec:
          containers: null
    status: {}
  resource: deployments
  verb: create
- apiVersion: apps/v1
  name: web
  namespace: default
  patch:
    spec:
      replicas: 3
  patchType: application/merge-patch+json
  resource: deployments
  verb: patch
- apiVersion: apps/v1
  name: web
  namespace: default
  patch: not json
  patchType: application/json-patch+json
  resource: deployments
  verb: patch
enqueued:
- add default/web
error: boom
events:
- message: scaled
  object: Deployment default/web
  reason: Scaled
  type: Normal
key: default/web
`
	if d := LineDiff(want, string(got)); d != "" {
		t.Errorf("Render (-want +got):\n%s", d)
	}
	again, _ := Render(s)
	if string(again) != string(got) {
		t.Error("Render is not deterministic")
	}
	if d.ResourceVersion != "7" || len(d.ManagedFields) != 1 {
		t.Error("Render changed the caller's object")
	}
}

func TestRenderEmpty(t *testing.T) {
	got, err := Render(Sync{Key: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "actions: []\nenqueued: []\nerror: null\nevents: []\nkey: a\n"; string(got) != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}

// What the sync function returned besides its error renders when set.
func TestRenderReturned(t *testing.T) {
	got, err := Render(Sync{Key: "a", Returned: "requeue after 10s"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "actions: []\nenqueued: []\nerror: null\nevents: []\nkey: a\nreturned: requeue after 10s\n"; string(got) != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}

func TestReadOnlyTestdataLosesNothing(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions; TestWriteFileIsAtomic covers a failed write")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.golden.yaml")
	if err := WriteFile(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	if err := WriteFile(path, []byte("new\n")); err == nil {
		t.Fatal("WriteFile into a read-only directory: no error")
	}
	if data, _ := os.ReadFile(path); string(data) != "old\n" {
		t.Errorf("file after a failed update = %q", data)
	}
}

func TestUpdateRecreatesDeletedFileIdentically(t *testing.T) {
	inTempDir(t)
	noUpdate(t)
	doc, err := Render(Sync{Key: "default/web", Enqueued: []string{"add default/web"}})
	if err != nil {
		t.Fatal(err)
	}
	path := Path(t.Name())
	t.Setenv(EnvUpdate, "1")
	AssertFile(t, path, doc)
	first, _ := os.ReadFile(path)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	AssertFile(t, path, doc)
	second, _ := os.ReadFile(path)
	if string(first) != string(second) || len(first) == 0 {
		t.Errorf("recreated file differs:\n%s\n---\n%s", first, second)
	}
}

// A sync whose fixture had no work-queue spy renders no enqueued field:
// an empty list would claim the controller enqueued nothing.
func TestRenderQueueUnseen(t *testing.T) {
	seen, err := Render(Sync{Key: "default/web"})
	if err != nil || !strings.Contains(string(seen), "enqueued: []\n") {
		t.Errorf("a sync with a spy that enqueued nothing renders (%v):\n%s", err, seen)
	}
	unseen, err := Render(Sync{Key: "default/web", QueueUnseen: true})
	if err != nil || strings.Contains(string(unseen), "enqueued") {
		t.Errorf("a sync without a spy renders (%v):\n%s", err, unseen)
	}
}
