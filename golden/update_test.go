package golden

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnvUpdateNotABoolean(t *testing.T) {
	inTempDir(t)
	noUpdate(t)
	path := "testdata/TestX.golden.yaml"
	if err := WriteFile(path, []byte("a: 1\n")); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"yes", "on", "Y", " 1", "true "} {
		t.Run(v, func(t *testing.T) {
			t.Setenv(EnvUpdate, v)
			rec := &recordingTB{TB: t}
			if AssertFile(rec, path, []byte("a: 2\n")) {
				t.Error("AssertFile passed")
			}
			want := []string{"golden: " + path + ": " + EnvUpdate + `="` + v + `" is not a boolean`, "1, t, T, TRUE, true or True", "0, f, F, FALSE, false or False"}
			if len(rec.errors) != 1 {
				t.Fatalf("errors = %q, want one", rec.errors)
			}
			for _, w := range want {
				if !strings.Contains(rec.errors[0], w) {
					t.Errorf("error %q lacks %q", rec.errors[0], w)
				}
			}
			if data, _ := os.ReadFile(path); string(data) != "a: 1\n" {
				t.Errorf("the golden file was rewritten: %q", data)
			}
			if Updating() {
				t.Error("Updating() is true")
			}
		})
	}
	// Every value ParseBool reads is taken; empty is unset.
	for v, want := range map[string]bool{"1": true, "t": true, "TRUE": true, "True": true, "0": false, "F": false, "false": false, "": false} {
		t.Setenv(EnvUpdate, v)
		if got, err := updating(); got != want || err != nil {
			t.Errorf("%s=%q: updating() = %v, %v; want %v", EnvUpdate, v, got, err, want)
		}
	}
}

// isLink reports whether path is a symbolic link.
func isLink(t *testing.T, path string) bool {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode()&fs.ModeSymlink != 0
}

func TestUpdateWritesThroughSymlinks(t *testing.T) {
	inTempDir(t)
	noUpdate(t)
	t.Setenv(EnvUpdate, "1")
	mustWrite := func(path, data string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustLink := func(target, link string) {
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	// A relative link to a shared file, a chain of links, an absolute link,
	// and a link whose target does not exist yet.
	mustWrite("testdata/shared.golden.yaml", "old: 1\n")
	mustLink("../shared.golden.yaml", "testdata/TestA/rel.golden.yaml")
	mustLink("rel.golden.yaml", "testdata/TestA/chain.golden.yaml")
	abs, _ := filepath.Abs("elsewhere/abs.yaml")
	mustWrite(abs, "old: 1\n")
	mustLink(abs, "testdata/TestA/abs.golden.yaml")
	mustLink("../../new/made.yaml", "testdata/TestA/dangling.golden.yaml")
	tests := []struct{ link, target, data string }{
		{"testdata/TestA/rel.golden.yaml", "testdata/shared.golden.yaml", "rel: 1\n"},
		{"testdata/TestA/chain.golden.yaml", "testdata/shared.golden.yaml", "chain: 1\n"},
		{"testdata/TestA/abs.golden.yaml", abs, "abs: 1\n"},
		{"testdata/TestA/dangling.golden.yaml", "new/made.yaml", "dangling: 1\n"},
	}
	for _, tt := range tests {
		rec := &recordingTB{TB: t}
		if !AssertFile(rec, tt.link, []byte(tt.data)) || len(rec.errors) > 0 {
			t.Errorf("%s: %q", tt.link, rec.errors)
		}
		if !isLink(t, tt.link) {
			t.Errorf("%s was replaced by a regular file", tt.link)
		}
		if data, err := os.ReadFile(tt.target); string(data) != tt.data {
			t.Errorf("%s: target %s holds %q, %v; want %q", tt.link, tt.target, data, err, tt.data)
		}
	}
	// The targets' directories hold no temporary file.
	for _, dir := range []string{"testdata", "testdata/TestA", "elsewhere", "new"} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("%s holds %s", dir, e.Name())
			}
		}
	}
	// The shared file is not stale: links to it were produced.
	if stale, err := Stale(); err != nil || len(stale) != 0 {
		t.Errorf("Stale() = %q, %v; want none", stale, err)
	}
	// A loop of links is refused.
	mustLink("loop-b.golden.yaml", "testdata/TestA/loop-a.golden.yaml")
	mustLink("loop-a.golden.yaml", "testdata/TestA/loop-b.golden.yaml")
	rec := &recordingTB{TB: t}
	if AssertFile(rec, "testdata/TestA/loop-a.golden.yaml", []byte("x: 1\n")) || len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "too many levels of symbolic links") {
		t.Errorf("a loop of links: %q", rec.errors)
	}
}
