package golden

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"
)

// produced holds the absolute paths of the golden files this test process
// compared or wrote; Stale reports the others. It is the package's only
// state, and it only grows.
var produced sync.Map

// Assert compares got, a YAML document, with the golden file of t
// (Path(t.Name())). With -update or EnvUpdate it writes got to the file
// instead. It reports through t.Errorf and returns whether they matched.
func Assert(t testing.TB, got []byte) bool {
	t.Helper()
	return AssertFile(t, Path(t.Name()), got)
}

// AssertFile is Assert with an explicit golden file path, relative to the
// package directory.
func AssertFile(t testing.TB, path string, got []byte) bool {
	t.Helper()
	if abs, err := filepath.Abs(path); err == nil {
		produced.Store(abs, true)
		if target, err := filepath.EvalSymlinks(abs); err == nil && target != abs { // a link: its target is produced too
			produced.Store(target, true)
		}
	}
	got = normalizeNewlines(got)
	if len(got) > 0 && got[len(got)-1] != '\n' {
		got = append(got, '\n')
	}
	update, err := updating()
	if err != nil {
		t.Errorf("golden: %s: %v", path, err)
		return false
	}
	if update {
		if err := WriteFile(path, got); err != nil {
			t.Errorf("golden: updating %s: %v", path, err)
			return false
		}
		return true
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Errorf("golden: %s does not exist; create it with:\n\t%s", path, UpdateCommand(t.Name()))
		return false
	}
	if err != nil {
		t.Errorf("golden: reading %s: %v", path, err)
		return false
	}
	var doc any
	if err := yaml.Unmarshal(want, &doc); err != nil {
		t.Errorf("golden: %s is not valid YAML: %v\nfix it by hand or regenerate it with:\n\t%s", path, err, UpdateCommand(t.Name()))
		return false
	}
	want = normalizeNewlines(want)
	if bytes.Equal(want, got) {
		return true
	}
	t.Errorf("golden: %s differs (-want +got):\n%s\nif the new output is right, update the file with:\n\t%s",
		path, LineDiff(string(want), string(got)), UpdateCommand(t.Name()))
	return false
}

func normalizeNewlines(b []byte) []byte {
	return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
}

// WriteFile writes data to path atomically: to a temporary file in the same
// directory, then renamed over path, so that a failed or interrupted run
// never leaves a half-written golden file. Directories are made as needed.
// When path is a symbolic link, the file it points to (through any chain of
// links, existing or not) is written, the same way, and the link stays.
func WriteFile(path string, data []byte) (err error) {
	path, err = writeTarget(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// writeTarget returns the file a write to path replaces: path itself, or,
// when path is a symbolic link, the file at the end of its chain of links,
// which need not exist yet.
func writeTarget(path string) (string, error) {
	orig := path
	for range 255 {
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) { // relative to the link's directory, as it really is
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", err
			}
			link = filepath.Join(dir, link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", orig)
}

// UpdateCommand returns the command that rewrites the golden file of the
// test named name, run from the module's root directory.
func UpdateCommand(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return fmt.Sprintf("go test %s -run %s -update", packageDir(), shellQuote(strings.Join(parts, "/")))
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// packageDir returns the package under test as a path from the module root
// ("./examples/foo"), or "." when it cannot tell.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}

// Stale returns the golden files under testdata/ that no Assert of this test
// process produced, sorted. It means something only after every test of
// the package ran; see [Main].
func Stale() ([]string, error) {
	var stale []string
	err := filepath.WalkDir(Dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == Dir {
			return fs.SkipAll
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, Suffix) {
			return err
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		if _, ok := produced.Load(abs); !ok {
			stale = append(stale, filepath.ToSlash(path))
		}
		return nil
	})
	sort.Strings(stale)
	return stale, err
}

// Main runs the package's tests and then, when they passed and none was
// filtered out (no -run, -skip or -short), fails if testdata/ holds golden
// files that no test produced, naming them. Stale files are never removed:
// delete them yourself. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(golden.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	if code != 0 || filtered() {
		return code
	}
	stale, err := Stale()
	if err != nil {
		fmt.Fprintf(os.Stderr, "golden: looking for stale golden files: %v\n", err)
		return 1
	}
	if len(stale) > 0 {
		fmt.Fprintf(os.Stderr, "golden: %d golden file(s) under %s/ were produced by no test; delete them if their tests are gone:\n", len(stale), Dir)
		for _, s := range stale {
			fmt.Fprintf(os.Stderr, "\t%s\n", s)
		}
		return 1
	}
	return 0
}

// filtered reports whether this run skipped tests on purpose, so that
// unproduced golden files are not evidence of staleness.
func filtered() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return true
		}
	}
	return testing.Short()
}
