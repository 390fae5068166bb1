// Package boundaries checks the import rules between ctrltest's packages.
package boundaries

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/ctrltest/ctrltest"

func deps(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", module+"/"+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	m := map[string]bool{}
	for _, l := range strings.Fields(string(out)) {
		m[l] = true
	}
	return m
}

func TestImportRules(t *testing.T) {
	rules := []struct {
		pkg       string
		forbidden []string
	}{
		// The reference controller is ordinary controller code.
		{"controller", []string{module + "/fixture", module + "/actions", module + "/golden", "github.com/google/go-cmp/cmp"}},
		{"controller/cmd/foo-controller", []string{module + "/fixture", module + "/actions", module + "/golden"}},
		// golden and actions never import fixture.
		{"golden", []string{module + "/fixture"}},
		{"actions", []string{module + "/fixture", module + "/golden"}},
	}
	for _, r := range rules {
		d := deps(t, r.pkg)
		for _, f := range r.forbidden {
			if d[f] {
				t.Errorf("%s imports %s", r.pkg, f)
			}
		}
	}
}
