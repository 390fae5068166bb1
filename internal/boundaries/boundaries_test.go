// Package boundaries checks the import rules between ctrltest's packages.
package boundaries

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestLayers: the packages of the core module import one another one
// way, as docs/architecture.md draws them. Each may import, of the
// module's packages, only those listed: fixture is the face; the engines
// below it (internal/world: the stored world, backends, request path,
// clients, informer feeds; internal/apiserver: the server's semantics;
// internal/feed: informers fed as a reflector would; internal/goroutines:
// which goroutines are the test's, the event wait and the leak check;
// internal/queues: the work-queue spies and their log; internal/sweeps:
// the sweeps' judges that need no fixture; internal/casefile: the case
// files' reader; internal/cleanups: a stack of cleanups, as testing keeps;
// internal/companions: the garbage collector and the namespace controller;
// internal/clientgo:
// every read of client-go's private state; internal/resources: what a
// clientset serves; internal/kubeminor: the Kubernetes minor of client-go) never import anything above them.
func TestLayers(t *testing.T) {
	allowed := map[string][]string{
		"fixture":             {"actions", "golden", "internal/world", "internal/goroutines", "internal/queues", "internal/resources", "internal/sweeps", "internal/casefile", "internal/cleanups", "internal/kubeminor", "internal/companions", "fixture/internal/adapt", "records"},
		"golden":              {"actions", "records"},
		"actions":             {"internal/resources"},
		"internal/world":      {"actions", "internal/apiserver", "internal/feed", "internal/clientgo", "internal/resources"},
		"internal/feed":       {"internal/clientgo"},
		"internal/goroutines": {},
		"internal/queues":     {},
		"internal/apiserver":  {},
		"internal/clientgo":   {},
		"internal/resources":  {"internal/kubeminor"},
		"internal/kubeminor":  {},
		"internal/sweeps":     {},
		"internal/casefile":   {},
		"internal/cleanups":   {},
		"internal/companions": {},
		"tbtest":              {"internal/cleanups"},
	}
	// fixture's hook for its adapter package; the plain records fixture
	// re-exports.
	allowed["fixture/internal/adapt"] = []string{"actions"}
	allowed["records"] = []string{"actions", "internal/queues"}
	for pkg, ok := range allowed {
		out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, module+"/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, imp := range strings.Fields(string(out)) {
			rel, inModule := strings.CutPrefix(imp, module+"/")
			if !inModule {
				continue
			}
			if !slices.Contains(ok, rel) {
				t.Errorf("%s imports %s; it may import only %v of the module (see docs/architecture.md)", pkg, rel, ok)
			}
		}
	}
}

// TestUnsafeLivesInClientgo: reads of other modules' private state (with
// unsafe) live in internal/clientgo only, whose tests fail when a field it
// reads moves.
func TestUnsafeLivesInClientgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] == module+"/internal/clientgo" {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == "unsafe" {
				t.Errorf("%s imports unsafe; put the read in internal/clientgo", fields[0])
			}
		}
	}
}

// TestToolsStayOutOfTheModuleGraph: the commands the Makefile runs are
// pinned in hack/tools, a module of their own, so a user's module graph
// does not carry them (issue 23 item 12).
func TestToolsStayOutOfTheModuleGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "all").Output()
	if err != nil {
		t.Fatalf("go list -m all: %v", err)
	}
	for _, tool := range []string{"honnef.co/go/tools", "golang.org/x/perf", "k8s.io/code-generator"} {
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, tool+" ") {
				t.Errorf("the core module's graph holds %s; pin tools in hack/tools/go.mod", line)
			}
		}
	}
}

// TestUserModulesDoNotCarryParity: the modules a user requires (the core
// module, crd and ctrlruntime) do not have the parity module in their
// graph, so a user's go list -m all and go doc need no replace line for it
// and their builds do not carry kube-apiserver's dependencies (issue 23
// item 12). Tests that need parity live in modules of their own
// (ctrlruntime/examples/parity, examples/kcm).
func TestUserModulesDoNotCarryParity(t *testing.T) {
	for _, dir := range []string{".", "crd", "ctrlruntime"} {
		cmd := exec.Command("go", "list", "-m", "all")
		cmd.Dir = filepath.Join("..", "..", dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("go list -m all in %s: %v\n%s", dir, err, out)
			continue
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, module+"/parity ") || line == module+"/parity" {
				t.Errorf("the module graph of %s holds %q; move the tests that need parity into a module of their own (as ctrlruntime/examples/parity)", dir, line)
			}
		}
	}
}

// TestNoRealKubernetesClientset: the core module's code never builds
// client-go's real kubernetes clientset (kubernetes.NewForConfig and its
// kin). Linking it added 9 MB to every user's test binary (issue 23 item
// 13): a server builds it (fixture.ClientsetServer; the parity module's
// servers do).
func TestNoRealKubernetesClientset(t *testing.T) {
	// Commands (the reference controller's main) build what they run with.
	out, err := exec.Command("go", "list", "-f", `{{if ne .Name "main"}}{{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}`, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	builders := map[string]bool{"NewForConfig": true, "NewForConfigOrDie": true, "NewForConfigAndClient": true, "New": true}
	files := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		for _, name := range fields[1:] {
			path := filepath.Join(fields[0], name)
			files++
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			local := ""
			for _, imp := range f.Imports {
				if strings.Trim(imp.Path.Value, `"`) != "k8s.io/client-go/kubernetes" {
					continue
				}
				local = "kubernetes"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && builders[sel.Sel.Name] {
						t.Errorf("%s: %s.%s builds the real kubernetes clientset into every user's test binary; let the server build it (fixture.ClientsetServer)",
							fset.Position(sel.Pos()), local, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
	if files < 50 {
		t.Fatalf("read %d files of the module: go list found too few", files)
	}
}
