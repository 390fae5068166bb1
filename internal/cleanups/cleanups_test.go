package cleanups

import (
	"reflect"
	"sync"
	"testing"
)

func TestStack(t *testing.T) {
	var s Stack
	var got []int
	s.Push(func() { got = append(got, 1) })
	s.Push(func() {
		got = append(got, 2)
		s.Push(func() { got = append(got, 3) }) // pushed while running: runs next
	})
	s.Run(nil)
	if want := []int{2, 3, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("ran %v, want %v", got, want)
	}
	s.Run(nil) // empty: nothing runs again
	if len(got) != 3 {
		t.Errorf("a second Run ran %v", got[3:])
	}
	guarded := 0
	s.Push(func() {})
	s.Run(func(fn func()) { guarded++; fn() })
	if guarded != 1 {
		t.Errorf("run called %d times, want 1", guarded)
	}
}

func TestStackPushesFromGoroutines(t *testing.T) {
	var s Stack
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for range 50 {
		wg.Go(func() { s.Push(func() { mu.Lock(); n++; mu.Unlock() }) })
	}
	wg.Wait()
	s.Run(nil)
	if n != 50 {
		t.Errorf("%d of 50 ran", n)
	}
}
