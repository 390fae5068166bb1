package records

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrltest/ctrltest/actions"
)

// Request is a request as kube-apiserver receives it: the recorded action
// and what decides which errors the server can answer it with.
type Request struct {
	actions.Action
	// ResourceVersion is the resourceVersion the write requires the stored
	// object to have (its metadata's, or a delete's Preconditions'); ""
	// for none.
	ResourceVersion string
	// UID is the uid the write requires the stored object to have, "" for
	// none.
	UID types.UID
	// Force is an apply's force option.
	Force bool
}
