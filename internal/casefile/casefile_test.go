package casefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var header = Header{APIVersion: "ctrltest.dev/v1alpha1", Kind: "SyncCase"}

const headerDoc = "apiVersion: ctrltest.dev/v1alpha1\nkind: SyncCase\nkey: default/web\n"

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFiles(t *testing.T) {
	if _, err := Files(t.TempDir(), ".golden.yaml"); err == nil || !strings.Contains(err.Error(), "holds no case file") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := Files(filepath.Join(t.TempDir(), "missing"), ".golden.yaml"); err == nil {
		t.Error("missing dir: no error")
	}
	dir := t.TempDir()
	for _, n := range []string{"b.yaml", "a.yaml", "c.yml", "a.golden.yaml", "notes.txt"} {
		write(t, dir, n, headerDoc)
	}
	if err := os.Mkdir(filepath.Join(dir, "d.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := Files(dir, ".golden.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "c.yml")}, got); d != "" {
		t.Errorf("Files (-want +got):\n%s", d)
	}
	// a.yaml and a.yml would be one case, with one golden file.
	write(t, dir, "a.yml", headerDoc)
	if _, err := Files(dir, ".golden.yaml"); err == nil || !strings.Contains(err.Error(), `a.yaml and `+filepath.Join(dir, "a.yml")+` are both case "a"`) {
		t.Errorf("a.yaml and a.yml: %v", err)
	}
	if got := Name("dir/x.y.yaml"); got != "x.y" {
		t.Errorf("Name: %q", got)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "c.yaml", "# a case\n---\n"+headerDoc+"---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n---\n\n---\napiVersion: v1\nkind: List\nitems: []\n")
	h, docs, err := Read(path, header)
	if err != nil {
		t.Fatal(err)
	}
	if h.Index != 1 || h.Type.Kind != "SyncCase" || !strings.Contains(string(h.JSON), `"key":"default/web"`) {
		t.Errorf("header: %d %v %s", h.Index, h.Type, h.JSON)
	}
	var got []string
	for _, d := range docs {
		got = append(got, fmt.Sprintf("%d %s %s %s", d.Index, d.Type.APIVersion, d.Type.Kind, d.JSON))
	}
	if d := cmp.Diff([]string{`3 v1 ConfigMap {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"}}`, `5 v1 List {"apiVersion":"v1","items":[],"kind":"List"}`}, got); d != "" {
		t.Errorf("documents (-want +got):\n%s", d)
	}
}

func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ name, content, want string }{
		{"empty", "# nothing\n", "empty case file; it needs a header document (apiVersion: ctrltest.dev/v1alpha1, kind: SyncCase"},
		{"no header", "apiVersion: v1\nkind: ConfigMap\n", "document 0: the first document must be the case header (apiVersion: ctrltest.dev/v1alpha1, kind: SyncCase), not v1 ConfigMap"},
		{"header not yaml", "apiVersion: ctrltest.dev/v1alpha1\nkind: SyncCase\nkey: [x\n", "document 0: the case header is not valid YAML"},
		{"object not yaml", headerDoc + "---\nkind: ConfigMap\nkind: Pod\n", `document 1: a seed object is not valid YAML: yaml: unmarshal errors:`},
		{"second header", headerDoc + "---\n# x\n---\n" + headerDoc, "document 2: a second case header (the header is document 0)"},
	} {
		_, _, err := Read(write(t, dir, tt.name+".yaml", tt.content), header)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, _, err := Read(filepath.Join(dir, "missing.yaml"), header); err == nil {
		t.Error("missing file: no error")
	}
}
