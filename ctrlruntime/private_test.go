package ctrlruntime

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivateReadsLiveInCrprivate: controller-runtime's unexported state is
// read by reflection (FieldByName) or unsafe in internal/crprivate only,
// whose tests fail when a field it reads moves.
func TestPrivateReadsLiveInCrprivate(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			strings.HasPrefix(filepath.ToSlash(path), "internal/crprivate/") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, marker := range []string{".FieldByName(", `"unsafe"`} {
			if strings.Contains(string(src), marker) {
				t.Errorf("%s uses %s; read controller-runtime's private state in internal/crprivate", path, marker)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
