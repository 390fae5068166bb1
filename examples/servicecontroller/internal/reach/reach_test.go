package reach

import (
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestFieldsAreWhereTheyWere fails, naming the field, when a field reach
// reads or writes moved, was renamed or changed type upstream.
func TestFieldsAreWhereTheyWere(t *testing.T) {
	for _, f := range Fields {
		if err := f.Check(); err != nil {
			t.Errorf("%v: %v", f, err)
		}
	}
	if err := checkCache(); err != nil {
		t.Error(err)
	}
}

// TestMethodsAreWhatTheyWere fails, naming the method, when a linked
// method (go:linkname) is linked to another symbol or its signature in the
// upstream source is not the one declared here (the linker binds by name:
// a changed signature would be called with the wrong arguments).
func TestMethodsAreWhatTheyWere(t *testing.T) {
	for _, m := range methods {
		fn := runtime.FuncForPC(reflect.ValueOf(m.fn).Pointer())
		if fn == nil || fn.Name() != m.name {
			t.Errorf("reach: the function for %s is linked to %v", m.name, fn)
			continue
		}
		file, _ := fn.FileLine(fn.Entry())
		got, err := sourceSignature(file, m.recv, m.method)
		if err != nil {
			t.Errorf("reach: %s: %v", m.name, err)
			continue
		}
		if got != m.sig {
			t.Errorf("reach: %s is declared %s in %s, not %s: change reach.go", m.name, got, file, m.sig)
		}
	}
}

// sourceSignature parses file and returns the signature of method name of
// receiver recv, with parameter names dropped.
func sourceSignature(file, recv, name string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return "", err
	}
	expr := func(e ast.Expr) string {
		var b strings.Builder
		printer.Fprint(&b, fset, e)
		return b.String()
	}
	types := func(fl *ast.FieldList) []string {
		var out []string
		if fl == nil {
			return nil
		}
		for _, fld := range fl.List {
			for range max(len(fld.Names), 1) {
				out = append(out, expr(fld.Type))
			}
		}
		return out
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Name.Name != name || expr(fd.Recv.List[0].Type) != recv {
			continue
		}
		sig := "func(" + strings.Join(types(fd.Type.Params), ", ") + ")"
		switch res := types(fd.Type.Results); len(res) {
		case 0:
		case 1:
			sig += " " + res[0]
		default:
			sig += " (" + strings.Join(res, ", ") + ")"
		}
		return sig, nil
	}
	return "", &missingError{recv + "." + name + " in " + file}
}

type missingError struct{ what string }

func (e *missingError) Error() string { return "no method " + e.what }
