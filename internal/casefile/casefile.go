// Package casefile reads the files of declarative cases (fixture.Cases):
// which files of a directory are cases, and each file's documents, parsed
// once and strictly. It knows a case file's shape (a header document, then
// manifests) but neither the header's fields nor how manifests decode:
// fixture decodes both.
package casefile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// A Header names the header document's type: the first document of a case
// file must have it, and no other may.
type Header struct{ APIVersion, Kind string }

// Doc is one document of a case file that is not empty.
type Doc struct {
	// Index counts the file's documents from 0, empty ones included, as
	// messages name them.
	Index int
	// JSON is the document as JSON.
	JSON []byte
	// Type is the document's apiVersion and kind.
	Type metav1.TypeMeta
}

// Read parses the case file at path: its header document and the documents
// after it. Each document is parsed once: YAML to JSON (a key given twice
// in one mapping is an error), then its type. An error names the file and
// the document.
func Read(path string, h Header) (header Doc, docs []Doc, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Doc{}, nil, err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	found := false
	for i := 0; ; i++ {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Doc{}, nil, fmt.Errorf("%s, document %d: %v", path, i, err)
		}
		if isEmpty(raw) {
			continue
		}
		doc := Doc{Index: i}
		doc.JSON, err = yaml.YAMLToJSONStrict(raw)
		if err == nil {
			err = json.Unmarshal(doc.JSON, &doc.Type)
		}
		if err != nil {
			what := "a seed object"
			if !found {
				what = "the case header"
			}
			return Doc{}, nil, fmt.Errorf("%s, document %d: %s is not valid YAML: %v", path, i, what, err)
		}
		isHeader := doc.Type.APIVersion == h.APIVersion && doc.Type.Kind == h.Kind
		switch {
		case found && isHeader:
			return Doc{}, nil, fmt.Errorf("%s, document %d: a second case header (the header is document %d); a case file has one header, first, then the seed objects", path, i, header.Index)
		case found:
			docs = append(docs, doc)
		case !isHeader:
			return Doc{}, nil, fmt.Errorf("%s, document %d: the first document must be the case header (apiVersion: %s, kind: %s), not %s %s",
				path, i, h.APIVersion, h.Kind, doc.Type.APIVersion, doc.Type.Kind)
		default:
			header, found = doc, true
		}
	}
	if !found {
		return Doc{}, nil, fmt.Errorf("%s: empty case file; it needs a header document (apiVersion: %s, kind: %s, key: ...)", path, h.APIVersion, h.Kind)
	}
	return header, docs, nil
}

// isEmpty reports whether a document holds nothing but blank lines and
// comments.
func isEmpty(doc []byte) bool {
	for line := range strings.SplitSeq(string(doc), "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

// Name is the name of a case: its file's, without the extension.
func Name(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Files returns the case files of dir, sorted: its *.yaml and *.yml files
// whose names do not end in skip (the golden files' suffix). Two files that
// are one case (a.yaml and a.yml), or none, are an error.
func Files(dir, skip string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	byName := map[string]string{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) || strings.HasSuffix(n, skip) {
			continue
		}
		path := filepath.Join(dir, n)
		if other, dup := byName[Name(n)]; dup {
			return nil, fmt.Errorf("%s and %s are both case %q (and would share a golden file); rename or remove one", other, path, Name(n))
		}
		byName[Name(n)] = path
		files = append(files, path)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no case file (*.yaml, *.yml)", dir)
	}
	sort.Strings(files)
	return files, nil
}
