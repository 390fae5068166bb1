package golden

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
)

// Suffix ends the name of every golden file.
const Suffix = ".golden.yaml"

// Dir is the directory, relative to the package under test, that holds
// golden files.
const Dir = "testdata"

// Path returns the golden file of the test named name (t.Name()):
// testdata/<TestName>/<subtest>.golden.yaml, or testdata/<TestName>.golden.yaml
// for a test without subtests. Each part of the name is sanitized (see
// SanitizeName), so no name escapes testdata/. With InDir among opts the
// file is under that directory instead; the other options do not change
// the path.
func Path(name string, opts ...Option) string {
	dir := newConfig(opts).dir
	if dir == "" {
		dir = Dir
	}
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = SanitizeName(p)
	}
	return filepath.Join(append([]string{dir}, parts...)...) + Suffix
}

// InDir keeps golden files under dir instead of testdata/ (see Path), for a
// package whose directory cannot be written (a package in the module
// cache, tested through an overlay): dir may be absolute. Files under a dir
// other than testdata/ are not looked at by Stale. It changes where a file
// is, not how a sync renders.
func InDir(dir string) Option { return optionFunc(func(c *config) { c.dir = dir }) }

// SanitizeName turns one part of a test name into a safe file name: letters,
// digits, '-', '_' and '.' are kept, anything else becomes '_', a leading
// '.' becomes '_' (so neither "." nor ".." survives), and an empty name
// becomes "_". Whenever something was replaced, a short hash of the
// original name is appended, so two different names never map to one file.
// Names are short (at most 117 bytes), so nested subtests stay within
// file-system limits.
func SanitizeName(name string) string {
	var b strings.Builder
	changed := name == ""
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && i > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	out := b.String()
	if len(out) > 100 {
		out, changed = out[:100], true
	}
	// A kept name that looks like a hashed one is hashed too, so that no
	// kept name equals a hashed one.
	if changed || hashed.MatchString(out) {
		sum := sha256.Sum256([]byte(name))
		out += "-" + hex.EncodeToString(sum[:8])
	}
	return out
}

var hashed = regexp.MustCompile(`-[0-9a-f]{16}$`)
