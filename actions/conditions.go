package actions

import (
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrltest/ctrltest/internal/options"
)

// conditionTimeFields are the timestamps of status conditions that
// controllers stamp with the time of the sync (metav1.Now()): compared as
// set or not set, never by value, unless KeepConditionTimes is given. The
// golden package masks the same fields (golden.TimePlaceholder).
var conditionTimeFields = map[string]bool{
	"LastTransitionTime": true, "LastUpdateTime": true, "LastHeartbeatTime": true, "LastProbeTime": true,
	"lastTransitionTime": true, "lastUpdateTime": true, "lastHeartbeatTime": true, "lastProbeTime": true,
}

// KeepConditionTimes compares the timestamps of status conditions
// (lastTransitionTime, lastUpdateTime, lastHeartbeatTime, lastProbeTime)
// by value. By default [Diff] only checks that each is set where the
// expectation sets it: a controller stamps them with the time of the sync.
// It is an option of package golden too: golden.Render then renders them
// as they are, not as golden.TimePlaceholder (for a controller whose clock
// the test fixes).
func KeepConditionTimes() options.Both { return keepConditionTimes{} }

// keepConditionTimes is KeepConditionTimes, which both packages read.
type keepConditionTimes struct{}

// Apply sets the shared setting.
func (keepConditionTimes) Apply(s *options.Set) { s.KeepConditionTimes = true }
func (keepConditionTimes) ActionsOption()       {}
func (keepConditionTimes) GoldenOption()        {}

// conditionTimes is the go-cmp option that compares condition timestamps
// as set or not set, in typed objects (a field of a value under a field
// named Conditions) and in unstructured ones (a key under "conditions").
var conditionTimes = cmp.Options{
	cmp.FilterPath(typedConditionTime, cmp.Comparer(func(a, b metav1.Time) bool { return a.IsZero() == b.IsZero() })),
	cmp.FilterPath(mapConditionTime, cmp.Comparer(func(a, b any) bool { return isSetTime(a) == isSetTime(b) })),
}

func typedConditionTime(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	if !ok || !conditionTimeFields[sf.Name()] {
		return false
	}
	for _, s := range p {
		if f, ok := s.(cmp.StructField); ok && f.Name() == "Conditions" {
			return true
		}
	}
	return false
}

func mapConditionTime(p cmp.Path) bool {
	mi, ok := p.Last().(cmp.MapIndex)
	if !ok {
		return false
	}
	key, _ := mi.Key().Interface().(string)
	if !conditionTimeFields[key] {
		return false
	}
	for _, s := range p {
		if m, ok := s.(cmp.MapIndex); ok {
			if k, _ := m.Key().Interface().(string); k == "conditions" {
				return true
			}
		}
	}
	return false
}

func isSetTime(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case string:
		return t != ""
	}
	return true
}
