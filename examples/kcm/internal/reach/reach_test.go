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
}

// TestMethodsAreWhatTheyWere fails, naming the method, when a go:linkname'd
// method is linked to another symbol or its signature in the upstream
// source is not the one the declaration here assumes (the linker binds by
// name: a changed signature would be called with the wrong arguments).
func TestMethodsAreWhatTheyWere(t *testing.T) {
	for _, m := range methods {
		fn := runtime.FuncForPC(reflect.ValueOf(m.fn).Pointer())
		if fn == nil || fn.Name() != m.name {
			t.Errorf("reach: the function for %s is linked to %v", m.name, fn.Name())
			continue
		}
		file, _ := fn.FileLine(fn.Entry())
		got, err := sourceSignature(file, m.recv, m.method)
		if err != nil {
			t.Errorf("reach: %s: %v", m.name, err)
			continue
		}
		if got != m.signature {
			t.Errorf("reach: %s is declared %s in %s, not %s: change methods.go", m.name, got, file, m.signature)
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
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Name.Name != name || expr(fset, fd.Recv.List[0].Type) != recv {
			continue
		}
		types := func(fl *ast.FieldList) []string {
			var out []string
			if fl == nil {
				return nil
			}
			for _, fld := range fl.List {
				n := max(len(fld.Names), 1)
				for range n {
					out = append(out, expr(fset, fld.Type))
				}
			}
			return out
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
	return "", &missingError{recv, name, file}
}

type missingError struct{ recv, name, file string }

func (e *missingError) Error() string {
	return "no method (" + e.recv + ")." + e.name + " in " + e.file
}

func expr(fset *token.FileSet, e ast.Expr) string {
	var b strings.Builder
	printer.Fprint(&b, fset, e)
	return b.String()
}

// TestFieldCheckNamesTheField shows the message a moved field gives.
func TestFieldCheckNamesTheField(t *testing.T) {
	type controller struct {
		queue int
	}
	_ = controller{}.queue
	for _, tc := range []struct {
		name string
		c    Checker
		want string
	}{
		{"renamed", Field[controller, int]{"workQueue"}, `has no field "workQueue"`},
		{"retyped", Field[controller, string]{"queue"}, "reach.controller.queue is a int now, not a string"},
		{"not a queue", ShutDowner[controller]{"queue"}, "which has no ShutDown method"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestOfReadsAndWrites reads and writes an unexported field through Of.
func TestOfReadsAndWrites(t *testing.T) {
	type controller struct {
		_     int
		queue string
	}
	c := &controller{queue: "old"}
	p := Field[controller, string]{"queue"}.Of(t, c)
	if *p != "old" {
		t.Errorf("Of read %q, want %q", *p, "old")
	}
	*p = "new"
	if c.queue != "new" {
		t.Errorf("after a write through Of the field is %q, want %q", c.queue, "new")
	}
}
