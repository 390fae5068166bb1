package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goMod is the kube module's go.mod.
func goMod(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The command prints the kube module's own directives, word for word.
func TestPrintsTheModulesReplaces(t *testing.T) {
	var out strings.Builder
	if err := write(&out); err != nil {
		t.Fatal(err)
	}
	mod := goMod(t)
	start := strings.Index(mod, "// k8s.io/kubernetes ")
	if start < 0 {
		t.Fatal("kube/go.mod has no comment starting \"// k8s.io/kubernetes \" before its replace block")
	}
	end := strings.Index(mod[start:], "\n)\n")
	if end < 0 {
		t.Fatal("kube/go.mod: the replace block does not end")
	}
	want := mod[start : start+end+3]
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("printed directives (-kube/go.mod +printed):\n%s", diff)
	}
	if !strings.Contains(mod, "\tk8s.io/kubernetes "+kubernetes+"\n") {
		t.Errorf("kube/go.mod does not require k8s.io/kubernetes %s", kubernetes)
	}
}

// The staging modules are those k8s.io/kubernetes' go.mod requires at
// v0.0.0, in its order (from the module cache, through the go command).
func TestStagingModulesAreKubernetes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+kubernetes)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go mod download k8s.io/kubernetes@%s: %v (offline?)", kubernetes, err)
	}
	var info struct{ GoMod string }
	if err := json.Unmarshal(out, &info); err != nil || info.GoMod == "" {
		t.Fatalf("go mod download -json: %v, %s", err, out)
	}
	b, err := os.ReadFile(info.GoMod)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == "v0.0.0" && strings.HasPrefix(f[0], "k8s.io/") {
			want = append(want, f[0])
		}
	}
	if diff := cmp.Diff(want, staging[:]); diff != "" {
		t.Errorf("staging modules (-k8s.io/kubernetes' go.mod +the command's):\n%s", diff)
	}
}
