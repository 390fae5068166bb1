// Package cleanups is a stack of cleanup functions as testing.T keeps
// one: functions are pushed from any goroutine and run last first, and
// one pushed while the stack runs runs too.
package cleanups

import "sync"

// Stack holds cleanup functions. The zero value is empty and ready.
type Stack struct {
	mu  sync.Mutex
	fns []func()
}

// Push adds fn to the top of the stack.
func (s *Stack) Push(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fns = append(s.fns, fn)
}

// Run pops each function, last pushed first, and calls run with it (or
// calls it, when run is nil), until the stack is empty. The lock is not
// held while a function runs, so it may push more.
func (s *Stack) Run(run func(fn func())) {
	for {
		s.mu.Lock()
		n := len(s.fns)
		if n == 0 {
			s.mu.Unlock()
			return
		}
		fn := s.fns[n-1]
		s.fns = s.fns[:n-1]
		s.mu.Unlock()
		if run == nil {
			fn()
		} else {
			run(fn)
		}
	}
}
