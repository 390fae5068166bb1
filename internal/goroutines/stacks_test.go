package goroutines

import (
	"strings"
	"testing"
	"time"
)

func TestSyncStacks(t *testing.T) {
	dump := `goroutine 1 [chan receive]:
testing.(*T).Run(0xc000102000)
	/go/src/testing/testing.go:1 +0x1

goroutine 9 [sync.Mutex.Lock]:
internal/sync.runtime_SemacquireMutex(0xc0000a4000?, 0x0?, 0x0?)
	/go/src/runtime/sema.go:95 +0x25
sync.(*Mutex).Lock(...)
	/go/src/sync/mutex.go:46
example.com/ctl.(*Controller).sync(0xc000110000, {0x1, 0x2})
	/src/ctl/ctl.go:42 +0x3c
created by github.com/ctrltest/ctrltest/fixture.runSync[...] in goroutine 7
	/src/fixture/guard.go:50 +0x1

goroutine 12 [select, 2 minutes]:
example.com/ctl.worker()
	/src/ctl/ctl.go:60 +0x1
created by example.com/ctl.(*Controller).sync in goroutine 9
	/src/ctl/ctl.go:40 +0x1

goroutine 11 [IO wait]:
example.com/ctl.grandchild()
	/src/ctl/ctl.go:70 +0x1
created by example.com/ctl.worker in goroutine 12
	/src/ctl/ctl.go:61 +0x1

goroutine 13 [sleep]:
example.com/other.f()
	/src/other.go:1 +0x1
created by example.com/other.g in goroutine 1
	/src/other.go:2 +0x1
`
	got := syncStacks([]byte(dump), 9)
	var ids []string
	for _, s := range got {
		ids = append(ids, strings.Fields(s)[1])
	}
	if strings.Join(ids, ",") != "9,12,11" {
		t.Errorf("syncStacks picked goroutines %v, want 9, 12, 11", ids)
	}
	state, frame := blockedOn(got[0])
	if state != "sync.Mutex.Lock" || frame != "example.com/ctl.(*Controller).sync at /src/ctl/ctl.go:42" {
		t.Errorf("blockedOn = %q, %q", state, frame)
	}
	if got := syncStacks([]byte(dump), 99); got != nil {
		t.Errorf("syncStacks of a goroutine not in the dump = %q", got)
	}
	report := HangReport("default/web", time.Second, 99, []byte(dump))
	if !strings.Contains(report, "was not found") {
		t.Errorf("hangReport without the goroutine: %q", report)
	}
}

func TestStandardLibrary(t *testing.T) {
	for frame, want := range map[string]bool{
		"sync.(*Mutex).Lock(...)":                                      true,
		"runtime.gopark(0x1, 0x2)":                                     true,
		"internal/sync.runtime_SemacquireMutex(0x1)":                   true,
		"net/http.(*Client).Do(0x1)":                                   true,
		"k8s.io/client-go/util/workqueue.(*Typed[...]).Get(0x1)":       false,
		"github.com/ctrltest/ctrltest/fixture.hangingSync({0x1, 0x2})": false,
	} {
		if got := standardLibrary(frame); got != want {
			t.Errorf("standardLibrary(%q) = %v, want %v", frame, got, want)
		}
	}
}
