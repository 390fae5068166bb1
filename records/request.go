package records

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrltest/ctrltest/actions"
)

// Request is a request as kube-apiserver receives it: the recorded action
// and what decides which errors the server can answer it with. A
// fixture.Fault decides from it whether it applies and what it answers.
type Request struct {
	actions.Action
	// ResourceVersion is the resourceVersion the write requires the stored
	// object to have, "" for none: an update's metadata.resourceVersion, a
	// patch's or an apply's metadata.resourceVersion (a JSON patch's add or
	// replace of /metadata/resourceVersion), a delete's
	// Preconditions.ResourceVersion.
	ResourceVersion string
	// UID is the uid the write requires the stored object to have, "" for
	// none: an update's metadata.uid, a delete's Preconditions.UID.
	UID types.UID
	// Force is an apply's force option: a forced apply takes the fields
	// other field managers own instead of conflicting with them.
	Force bool
}
