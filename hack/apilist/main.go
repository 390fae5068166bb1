// Command apilist writes the public API of a module as a sorted list of
// lines, one per exported identifier, as the Go project keeps
// api/go1.N.txt:
//
//	pkg github.com/ctrltest/ctrltest/golden, func Assert(testing.TB, []uint8, ...Option) bool
//	pkg github.com/ctrltest/ctrltest/golden, type Sync struct, Key string
//
// It lists every package of the module in the given directory, except
// those under a path element internal, examples, testdata or cmd and
// those under an -exclude prefix, with the types of their exported
// constants, variables, functions, types, struct fields and methods, and
// interface methods, as go/types sees them in the packages' export data
// (go list -export: the packages are built, as go vet builds them).
// Packages with no exported identifier (test-only packages) are left out.
//
// make api writes api/<module>.txt for each module; make verify-api fails
// when a file differs from what apilist prints.
//
// Usage:
//
//	go run ./hack/apilist [-exclude controller/,hack/] [-o api/ctrltest.txt] [dir]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
)

func main() {
	out := flag.String("o", "", "the file to write (default: standard output)")
	exclude := flag.String("exclude", "", "comma-separated package path prefixes, relative to the module, to leave out (controller/,hack/)")
	flag.Parse()
	dir := "."
	if flag.NArg() > 1 {
		log.Fatal("apilist: at most one module directory")
	}
	if flag.NArg() == 1 {
		dir = flag.Arg(0)
	}
	var prefixes []string
	if *exclude != "" {
		prefixes = strings.Split(*exclude, ",")
	}
	lines, err := List(dir, prefixes)
	if err != nil {
		log.Fatalf("apilist: %v", err)
	}
	text := []byte(strings.Join(lines, "\n") + "\n")
	if *out == "" {
		_, err = os.Stdout.Write(text)
	} else {
		err = os.WriteFile(*out, text, 0o644)
	}
	if err != nil {
		log.Fatalf("apilist: %v", err)
	}
}

// listed is what apilist reads of one package from go list.
type listed struct {
	ImportPath string
	Name       string
	Export     string
	DepOnly    bool
	Module     *struct{ Path string }
	GoFiles    []string
	Error      *struct{ Err string }
}

// List returns the sorted API lines of the public packages of the module
// in dir; a package whose path relative to the module starts with one of
// exclude is left out.
func List(dir string, exclude []string) ([]string, error) {
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-json=ImportPath,Name,Export,DepOnly,Module,GoFiles,Error", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	exports := map[string]string{}
	var targets []listed
	for dec := json.NewDecoder(bytes.NewReader(data)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list in %s: %v", dir, err)
		}
		if p.Export != "" {
			exports[p.ImportPath] = p.Export
		}
		if p.DepOnly || p.Module == nil || len(p.GoFiles) == 0 || !public(p.ImportPath, p.Module.Path, exclude) {
			continue
		}
		if p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		targets = append(targets, p)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var lines []string
	for _, p := range targets {
		pkg, err := imp.Import(p.ImportPath)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p.ImportPath, err)
		}
		lines = append(lines, Package(pkg)...)
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

// public reports whether the package at path, in the module modPath, is
// part of the module's public API.
func public(path, modPath string, exclude []string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, modPath), "/")
	for _, elem := range strings.Split(rel, "/") {
		switch elem {
		case "internal", "examples", "testdata", "cmd":
			return false
		}
	}
	for _, p := range exclude {
		if p != "" && (rel == strings.TrimSuffix(p, "/") || strings.HasPrefix(rel, strings.TrimSuffix(p, "/")+"/")) {
			return false
		}
	}
	return true
}

// Package returns the API lines of pkg's exported identifiers, unsorted.
func Package(pkg *types.Package) []string {
	var lines []string
	prefix := "pkg " + pkg.Path() + ", "
	add := func(format string, args ...any) { lines = append(lines, prefix+fmt.Sprintf(format, args...)) }
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	str := func(t types.Type) string { return types.TypeString(t, qual) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			if b, ok := obj.Type().(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				add("const %s = %s", name, obj.Val().ExactString())
			} else {
				add("const %s %s", name, str(obj.Type()))
			}
		case *types.Var:
			add("var %s %s", name, str(obj.Type()))
		case *types.Func:
			add("func %s%s", name, signature(obj.Type().(*types.Signature), qual))
		case *types.TypeName:
			lines = append(lines, typeLines(prefix, obj, qual)...)
		}
	}
	return lines
}

// typeLines returns the lines of an exported type: the type, then its
// exported fields or interface methods, then its exported methods.
func typeLines(prefix string, obj *types.TypeName, qual types.Qualifier) []string {
	str := func(t types.Type) string { return types.TypeString(t, qual) }
	name := obj.Name()
	if obj.IsAlias() {
		return []string{prefix + fmt.Sprintf("type %s = %s", name, str(obj.Type()))}
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return []string{prefix + fmt.Sprintf("type %s %s", name, str(obj.Type()))}
	}
	head := name + typeParams(named.TypeParams(), qual)
	var lines []string
	switch u := named.Underlying().(type) {
	case *types.Struct:
		lines = append(lines, prefix+"type "+head+" struct")
		for i := range u.NumFields() {
			f := u.Field(i)
			switch {
			case f.Embedded():
				lines = append(lines, prefix+fmt.Sprintf("type %s struct, embedded %s", head, str(f.Type())))
			case f.Exported():
				lines = append(lines, prefix+fmt.Sprintf("type %s struct, %s %s", head, f.Name(), str(f.Type())))
			}
		}
	case *types.Interface:
		lines = append(lines, prefix+"type "+head+" interface")
		unexported := false
		for i := range u.NumExplicitMethods() {
			m := u.ExplicitMethod(i)
			if !m.Exported() {
				unexported = true
				continue
			}
			lines = append(lines, prefix+fmt.Sprintf("type %s interface, %s%s", head, m.Name(), signature(m.Type().(*types.Signature), qual)))
		}
		if unexported {
			lines = append(lines, prefix+fmt.Sprintf("type %s interface, unexported methods", head))
		}
		for i := range u.NumEmbeddeds() {
			lines = append(lines, prefix+fmt.Sprintf("type %s interface, embedded %s", head, str(u.EmbeddedType(i))))
		}
	default:
		lines = append(lines, prefix+fmt.Sprintf("type %s %s", head, str(u)))
	}
	for i := range named.NumMethods() {
		m := named.Method(i)
		if !m.Exported() {
			continue
		}
		sig := m.Type().(*types.Signature)
		recv := name + typeParamNames(named.TypeParams())
		if _, ptr := sig.Recv().Type().(*types.Pointer); ptr {
			recv = "*" + recv
		}
		lines = append(lines, prefix+fmt.Sprintf("method (%s) %s%s", recv, m.Name(), signature(sig, qual)))
	}
	return lines
}

// signature is a function's type parameters, parameter types and result
// types, without names: "[T any](string, ...T) (int, error)".
func signature(sig *types.Signature, qual types.Qualifier) string {
	var b strings.Builder
	b.WriteString(typeParams(sig.TypeParams(), qual))
	b.WriteString("(")
	for i := range sig.Params().Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			b.WriteString("..." + types.TypeString(t.(*types.Slice).Elem(), qual))
			continue
		}
		b.WriteString(types.TypeString(t, qual))
	}
	b.WriteString(")")
	switch res := sig.Results(); res.Len() {
	case 0:
	case 1:
		b.WriteString(" " + types.TypeString(res.At(0).Type(), qual))
	default:
		b.WriteString(" (")
		for i := range res.Len() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(types.TypeString(res.At(i).Type(), qual))
		}
		b.WriteString(")")
	}
	return b.String()
}

// typeParams is "[K comparable, V any]", or "" for none.
func typeParams(tps *types.TypeParamList, qual types.Qualifier) string {
	if tps.Len() == 0 {
		return ""
	}
	parts := make([]string, tps.Len())
	for i := range tps.Len() {
		tp := tps.At(i)
		parts[i] = tp.Obj().Name() + " " + types.TypeString(tp.Constraint(), qual)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// typeParamNames is "[K, V]", or "" for none: a method's receiver.
func typeParamNames(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	names := make([]string, tps.Len())
	for i := range tps.Len() {
		names[i] = tps.At(i).Obj().Name()
	}
	return "[" + strings.Join(names, ", ") + "]"
}
