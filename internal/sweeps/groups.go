package sweeps

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Group is a set of objects of which a controller means to have a
// certain number: those of one resource and namespace with the same
// controller, or (without one) the same generateName.
type Group struct {
	gvr          schema.GroupVersionResource
	namespace    string
	owner        string // "Deployment web"
	ownerUID     types.UID
	generateName string
}

// String says what the group's objects share: "pods in default are
// controlled by Deployment web".
func (g Group) String() string {
	if g.owner != "" {
		return fmt.Sprintf("%s in %s are controlled by %s", g.gvr.Resource, g.namespace, g.owner)
	}
	return fmt.Sprintf("%s in %s were named from generateName %q", g.gvr.Resource, g.namespace, g.generateName)
}

// GroupOf returns obj's Group; false when it has none or is being deleted.
func GroupOf(gvr schema.GroupVersionResource, obj runtime.Object) (Group, string, bool) {
	m, err := meta.Accessor(obj)
	if err != nil || m.GetDeletionTimestamp() != nil {
		return Group{}, "", false
	}
	g := Group{gvr: gvr, namespace: m.GetNamespace()}
	if ref := metav1.GetControllerOfNoCopy(m); ref != nil {
		g.owner, g.ownerUID = ref.Kind+" "+ref.Name, ref.UID
	} else if g.generateName = m.GetGenerateName(); g.generateName == "" {
		return Group{}, "", false
	}
	return g, m.GetName(), true
}

// CountGroups counts the objects of gvr in objs by Group, with their names.
func CountGroups(gvr schema.GroupVersionResource, objs []runtime.Object) map[Group][]string {
	out := map[Group][]string{}
	for _, obj := range objs {
		if g, name, ok := GroupOf(gvr, obj); ok {
			out[g] = append(out[g], name)
		}
	}
	return out
}
