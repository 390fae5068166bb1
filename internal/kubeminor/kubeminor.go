// Package kubeminor tells which Kubernetes minor a test binary is built
// against, the minor of its k8s.io/client-go (v0.36.6 is Kubernetes 1.36),
// and whether ctrltest supports it.
//
// ctrltest supports three minors at once (Oldest to Newest, as Kubernetes
// does; hack/minors.txt lists their module versions). On another minor it
// may not build, or build and misread client-go's private state
// (internal/clientgo reports such reads as failed, never reads wrong
// memory): Check turns that into a message naming the version found and the
// supported range. The version comes from the binary's build info or, in a
// test binary (go test records no dependency in it), from the path of
// client-go's source compiled in (.../k8s.io/client-go@v0.36.6/...), read
// once per process; a binary whose client-go has no version there (vendored,
// or replaced by a directory) is not judged.
package kubeminor

import (
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"k8s.io/client-go/tools/cache"
)

// Oldest and Newest are the Kubernetes minors ctrltest supports (1.Oldest
// to 1.Newest, k8s.io/client-go v0.Oldest to v0.Newest): the first and last
// rows of hack/minors.txt.
const (
	Oldest = 35
	Newest = 37
)

// Supported names the supported range for messages.
var Supported = fmt.Sprintf("Kubernetes 1.%d to 1.%d (k8s.io/client-go v0.%d.x to v0.%d.x)", Oldest, Newest, Oldest, Newest)

// Of returns the Kubernetes minor a k8s.io staging module's version names
// (v0.36.6, v0.37.0-rc.1 and v0.38.0-alpha.0.0.20261101120000-abcdef123456
// name 36, 37 and 38); ok is false for a version that names none: "",
// "(devel)", v0.0.0 (k8s.io/kubernetes' placeholder for a replaced module),
// a v1 or later.
func Of(version string) (minor int, ok bool) {
	rest, ok := strings.CutPrefix(version, "v0.")
	if !ok {
		return 0, false
	}
	digits, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// ClientGo returns the version of k8s.io/client-go a build used: the
// replacement's when a replace directive names one (k8s.io/kubernetes
// requires v0.0.0 and replaces it), "" when the build has no client-go or
// replaces it by a directory.
func ClientGo(bi *debug.BuildInfo) string {
	if bi == nil {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path != "k8s.io/client-go" {
			continue
		}
		if m.Replace != nil {
			return m.Replace.Version
		}
		return m.Version
	}
	return ""
}

// Check returns an error naming version and the supported range when
// version (of k8s.io/client-go) names a minor outside Oldest to Newest;
// nil when it names a supported minor or none (see Of).
func Check(version string) error {
	minor, ok := Of(version)
	if !ok || (minor >= Oldest && minor <= Newest) {
		return nil
	}
	return fmt.Errorf("this test binary is built with k8s.io/client-go %s (Kubernetes 1.%d); ctrltest supports %s: require a supported k8s.io/client-go (with k8s.io/api and k8s.io/apimachinery of the same version), or a ctrltest release that supports 1.%d", version, minor, Supported, minor)
}

// FromPath returns the module version in the path of a source file of
// k8s.io/client-go as the compiler recorded it: the module cache's
// directory (/root/go/pkg/mod/k8s.io/client-go@v0.36.6/tools/cache/...;
// k8s.io/client-go@v0.36.6/tools/cache/... with -trimpath); "" for a
// vendored or replaced client-go.
func FromPath(file string) string {
	_, rest, ok := strings.Cut(file, "k8s.io/client-go@")
	if !ok {
		return ""
	}
	version, _, _ := strings.Cut(rest, "/")
	return version
}

// Running returns the version of k8s.io/client-go this binary is built
// with ("" when it cannot tell) and its minor (0 when the version names
// none, see Of); read once per process: from the build info, else from the
// source path of a client-go function the binary holds (FromPath).
var Running = sync.OnceValues(func() (version string, minor int) {
	bi, _ := debug.ReadBuildInfo()
	version = ClientGo(bi)
	if version == "" {
		pc := reflect.ValueOf(cache.NewSharedIndexInformer).Pointer()
		if fn := runtime.FuncForPC(pc); fn != nil {
			file, _ := fn.FileLine(pc)
			version = FromPath(file)
		}
	}
	minor, _ = Of(version)
	return version, minor
})

// CheckRunning is Check of Running's version, once per process.
var CheckRunning = sync.OnceValue(func() error {
	version, _ := Running()
	return Check(version)
})
