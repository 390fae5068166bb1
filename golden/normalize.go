package golden

import (
	"fmt"
	"regexp"
	"sort"

	"github.com/ctrltest/ctrltest/internal/options"
)

// Placeholders that stand in for values that change between runs.
const (
	// TimePlaceholder replaces a condition's lastTransitionTime,
	// lastUpdateTime, lastHeartbeatTime and lastProbeTime when they are set.
	TimePlaceholder = "<time>"
	// MaskPlaceholder replaces a field named by Mask.
	MaskPlaceholder = "<masked>"
)

// An Option changes how Render renders a sync, or where Path puts a golden
// file (InDir). Options are made by this package's functions, and
// actions.KeepConditionTimes is one too.
type Option interface{ options.Golden }

type optionFunc func(*config)

func (optionFunc) GoldenOption() {}

// Apply sets o's setting when s is this package's.
func (o optionFunc) Apply(s *options.Set) {
	if c, ok := s.Own.(*config); ok {
		o(c)
	}
}

// Transform is a rewrite of a rendered object or patch body: a map as
// kubectl get -o yaml shows it, to change in place.
type Transform func(obj map[string]any)

type config struct {
	transforms         []Transform
	keepUIDs           bool
	keepConditionTimes bool
	dir                string
}

func newConfig(opts []Option) *config {
	c := &config{}
	c.keepConditionTimes = options.Apply(c, opts).KeepConditionTimes
	return c
}

// WithTransform applies fn to every rendered object and to every patch body
// that is a map, after the built-in normalizers and in the order given.
// Use it for fields of your own that change between runs (a hash, a
// timestamp in an annotation): replace them with a stable value rather than
// deleting them, so that the golden file still shows that they are set.
func WithTransform(fn Transform) Option {
	return optionFunc(func(c *config) {
		if fn != nil {
			c.transforms = append(c.transforms, fn)
		}
	})
}

// KeepUIDs renders uids as they are, not as "<uid-N>": for tables whose
// seeds all carry fixed uids that the golden file should show.
func KeepUIDs() Option { return optionFunc(func(c *config) { c.keepUIDs = true }) }

// Mask replaces the field at path, in every rendered object and patch body
// that has it, with MaskPlaceholder. Each element of path names a map key;
// the element "[]" stands for every item of a list. For example
// Mask("metadata", "annotations", "example.com/synced-at") or
// Mask("status", "conditions", "[]", "message"). A field that is absent
// stays absent.
func Mask(path ...string) Option {
	path = append([]string(nil), path...)
	return WithTransform(func(obj map[string]any) { mask(obj, path) })
}

func mask(v any, path []string) {
	if len(path) == 0 {
		return
	}
	if path[0] == "[]" {
		list, _ := v.([]any)
		for i := range list {
			if len(path) == 1 {
				list[i] = MaskPlaceholder
			} else {
				mask(list[i], path[1:])
			}
		}
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	child, ok := m[path[0]]
	if !ok {
		return
	}
	if len(path) == 1 {
		m[path[0]] = MaskPlaceholder
		return
	}
	mask(child, path[1:])
}

// conditionTimes are the timestamp fields of the conditions of the
// built-in kinds (metav1.Condition, and the apps, batch and core ones).
var conditionTimes = []string{"lastTransitionTime", "lastUpdateTime", "lastHeartbeatTime", "lastProbeTime"}

// normalizeConditionTimes replaces the set timestamps of status.conditions
// with TimePlaceholder: controllers take them from the wall clock.
func normalizeConditionTimes(obj map[string]any) {
	status, _ := obj["status"].(map[string]any)
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		cm, ok := c.(map[string]any)
		if !ok {
			continue
		}
		for _, f := range conditionTimes {
			if v, ok := cm[f]; ok && v != nil && v != "" {
				cm[f] = TimePlaceholder
			}
		}
	}
}

// uuidPattern matches a uid as the API server and uuid.NewUUID make them.
var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// uids numbers the UUID-shaped uids of one rendering by order of
// appearance, so that random uids (uuid.NewUUID in a test's seeds, then
// copied into owner references) render the same on every run, while two
// fields that hold the same uid still show the same placeholder.
type uids map[string]string

// normalize replaces, anywhere in v, the value of every field named "uid"
// that is UUID-shaped with "<uid-N>". Map keys are visited sorted, so the
// numbering is deterministic.
func (u uids) normalize(v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := v[k].(string); ok && k == "uid" && uuidPattern.MatchString(s) {
				v[k] = u.placeholder(s)
				continue
			}
			u.normalize(v[k])
		}
	case []any:
		for _, item := range v {
			u.normalize(item)
		}
	}
}

func (u uids) placeholder(uid string) string {
	if p, ok := u[uid]; ok {
		return p
	}
	p := fmt.Sprintf("<uid-%d>", len(u)+1)
	u[uid] = p
	return p
}
