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
// module's packages, only those listed: fixture is the face; below it
// internal/world composes the world's parts and is the store (seeds, the
// one request path, the request log, changes); its parts never import it:
// internal/delivery (informer feeds, lags, event orders, informer-mode
// waits), internal/clients (dynamic, metadata, discovery, scale, the Types
// clientset), internal/server (the real-server backend), internal/trackers
// (the fakes' object trackers and field managers), internal/strict
// (strict decoding and typing). Below them: internal/apiserver (the
// server's semantics, one record per built-in resource), internal/feed
// (informers fed as a reflector would), internal/encoded (what an object
// is once encoded), internal/records (the plain types shared: Event,
// CustomResource, scale paths), internal/clientgo (every read of
// client-go's private state), internal/resources (what a clientset
// serves), internal/kubeminor (the Kubernetes minor of client-go). Beside
// the world, for fixture: internal/goroutines, internal/queues,
// internal/sweeps, internal/casefile, internal/cleanups,
// internal/companions. Below actions and golden: internal/options (their
// one option type). None imports anything above it.
func TestLayers(t *testing.T) {
	allowed := map[string][]string{
		"fixture":             {"actions", "golden", "internal/world", "internal/goroutines", "internal/queues", "internal/resources", "internal/sweeps", "internal/casefile", "internal/cleanups", "internal/kubeminor", "internal/companions", "fixture/internal/adapt", "records"},
		"golden":              {"actions", "records", "internal/options"},
		"actions":             {"internal/resources", "internal/options"},
		"internal/world":      {"actions", "internal/apiserver", "internal/feed", "internal/clientgo", "internal/resources", "internal/server", "internal/clients", "internal/delivery", "internal/trackers", "internal/strict", "internal/records"},
		"internal/records":    {},
		"internal/strict":     {},
		"internal/trackers":   {"internal/apiserver", "internal/encoded", "internal/resources", "internal/clientgo"},
		"internal/delivery":   {"internal/feed", "internal/clientgo", "internal/apiserver", "internal/records"},
		"internal/server":     {"actions", "internal/resources"},
		"internal/clients":    {"internal/apiserver", "internal/encoded", "internal/resources", "internal/clientgo"},
		"internal/feed":       {"internal/clientgo"},
		"internal/goroutines": {},
		"internal/queues":     {},
		"internal/apiserver":  {"internal/records", "internal/encoded"},
		"internal/encoded":    {},
		"internal/clientgo":   {},
		"internal/resources":  {"internal/kubeminor"},
		"internal/kubeminor":  {},
		"internal/sweeps":     {"internal/records"},
		"internal/casefile":   {},
		"internal/cleanups":   {},
		"internal/companions": {},
		"tbtest":              {"internal/cleanups"},
		"internal/options":    {},
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

// upcallsAllowed bounds the upcalls of the engines fixture imports (see
// TestUpcalls): 18 at the start of issue 35, 17 after the world's split, 3
// once admission and a registration's parts were interfaces, the
// companions, the events and the world's reports pulled by the fixture,
// the event-order deliveries returned their events, and the world held no
// testing.TB (the target was 10). Lower it as the seams narrow;
// never raise it.
const upcallsAllowed = 3

// TestUpcalls counts the ways the engines run back up the layers into
// fixture: the function values (and the testing.TB) fixture hands the
// internal packages it imports, as the func-typed fields of their
// exported structs and the func-typed parameters of their exported
// functions and methods. Packages whose API is callbacks by nature (a
// stack of cleanups, the goroutine watch, the queue spies' config, the
// companions) are not engines of the world and are not counted.
func TestUpcalls(t *testing.T) {
	engines := []string{"internal/world"}
	n := 0
	for _, pkg := range engines {
		for _, u := range upcalls(t, pkg) {
			t.Logf("upcall: %s", u)
			n++
		}
	}
	if n > upcallsAllowed {
		t.Errorf("the engines fixture imports take %d callbacks from it (upcalls), %d allowed: pass data down and return results and errors instead", n, upcallsAllowed)
	}
}

// upcalls lists the func-typed (or testing.TB) exported fields and
// parameters of pkg's exported API.
func upcalls(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.Dir}}{{range .GoFiles}} {{.}}{{end}}`, module+"/"+pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	fields := strings.Fields(string(out))
	var up func(ast.Expr) bool
	up = func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.FuncType:
			return true
		case *ast.ArrayType:
			return up(e.Elt)
		case *ast.MapType:
			return up(e.Value)
		case *ast.StarExpr:
			return up(e.X)
		case *ast.Ellipsis:
			return up(e.Elt)
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			return ok && x.Name == "testing" && e.Sel.Name == "TB"
		}
		return false
	}
	var found []string
	for _, name := range fields[1:] {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(fields[0], name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					for _, fl := range st.Fields.List {
						for _, id := range fl.Names {
							if id.IsExported() && up(fl.Type) {
								found = append(found, pkg+"."+ts.Name.Name+"."+id.Name)
							}
						}
					}
				}
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv != nil {
					rt := d.Recv.List[0].Type
					if s, ok := rt.(*ast.StarExpr); ok {
						rt = s.X
					}
					if id, ok := rt.(*ast.Ident); !ok || !id.IsExported() {
						continue
					}
				}
				for _, p := range d.Type.Params.List {
					if up(p.Type) {
						found = append(found, pkg+"."+d.Name.Name+" (parameter)")
					}
				}
			}
		}
	}
	return found
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
// 13): a server builds it (adapter.ClientsetServer; the parity module's
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
						t.Errorf("%s: %s.%s builds the real kubernetes clientset into every user's test binary; let the server build it (adapter.ClientsetServer)",
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
