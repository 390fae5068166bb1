package world

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/internal/strict"
)

// DecodeJSON decodes one object (or list) given as JSON, whose type meta
// is tm, with the scheme of the clientset that knows its kind (see
// strict.DecodeJSON).
func (w *World) DecodeJSON(data []byte, tm metav1.TypeMeta) ([]runtime.Object, error) {
	return strict.DecodeJSON(data, tm, w.decoderFor, w.groupVersions)
}
