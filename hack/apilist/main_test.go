package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// write writes files (path relative to dir: content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestList: the listing has a line for every exported identifier of the
// module's public packages, none for unexported ones or for internal/,
// examples/, test-only and excluded packages; a new exported func adds its
// line.
func TestList(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"p/p.go": `package p

import "io"

// Max is a constant.
const Max = 3

// Default is a variable.
var Default = New(nil)

// New is a function.
func New(r io.Reader, opts ...Option) *T { return &T{} }

func hidden() {}

// T is a struct.
type T struct {
	A    int
	b    int
	Next *T
	io.Reader
}

// M is a method.
func (t *T) M() (int, error) { return 0, nil }

func (t *T) m() {}

// Option is sealed.
type Option interface {
	Name() string
	apply()
}

// List is generic.
type List[E comparable] []E

// Has is a method of a generic type.
func (l List[E]) Has(e E) bool { return false }
`,
		"internal/q/q.go":    "package q\n\n// Q is internal.\nfunc Q() {}\n",
		"examples/e/e.go":    "package e\n\n// E is an example.\nfunc E() {}\n",
		"skip/s.go":          "package skip\n\n// S is excluded.\nfunc S() {}\n",
		"onlytest/x_test.go": "package onlytest\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
	})
	got, err := List(dir, []string{"skip/"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pkg example.com/m/p, const Max = 3",
		"pkg example.com/m/p, func New(io.Reader, ...Option) *T",
		"pkg example.com/m/p, method (*T) M() (int, error)",
		"pkg example.com/m/p, method (List[E]) Has(E) bool",
		"pkg example.com/m/p, type List[E comparable] []E",
		"pkg example.com/m/p, type Option interface",
		"pkg example.com/m/p, type Option interface, Name() string",
		"pkg example.com/m/p, type Option interface, unexported methods",
		"pkg example.com/m/p, type T struct",
		"pkg example.com/m/p, type T struct, A int",
		"pkg example.com/m/p, type T struct, Next *T",
		"pkg example.com/m/p, type T struct, embedded io.Reader",
		"pkg example.com/m/p, var Default *T",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("List (-want +got):\n%s", diff)
	}

	write(t, dir, map[string]string{"p/added.go": "package p\n\n// Added is new.\nfunc Added(n int) string { return \"\" }\n\nfunc alsoHidden() {}\n"})
	got, err = List(dir, []string{"skip/"})
	if err != nil {
		t.Fatal(err)
	}
	want = append(want[:1:1], append([]string{"pkg example.com/m/p, func Added(int) string"}, want[1:]...)...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List after adding func Added (-want +got):\n%s", diff)
	}
}
