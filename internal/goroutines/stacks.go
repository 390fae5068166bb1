package goroutines

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// HangReport describes a sync that did not return: what its goroutine is
// blocked on and the stacks of that goroutine and of those it started.
func HangReport(key string, timeout time.Duration, id uint64, all []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sync %q did not return within %v (see fixture.WithTimeout)", key, timeout)
	stacks := syncStacks(all, id)
	if len(stacks) == 0 {
		b.WriteString("; its goroutine was not found in the stack dump\n")
		return b.String()
	}
	state, frame := blockedOn(stacks[0])
	fmt.Fprintf(&b, ": it is blocked (%s)", state)
	if frame != "" {
		fmt.Fprintf(&b, " in %s", frame)
	}
	b.WriteString(".\nIts goroutine is abandoned: it ends when the sync returns, for example when the fixture's context (Fixture.Context) is cancelled at the end of the test.\n")
	if len(stacks) > 1 {
		fmt.Fprintf(&b, "The sync's goroutine, then the %d goroutine(s) it started that are still running:\n", len(stacks)-1)
	} else {
		b.WriteString("The sync's goroutine:\n")
	}
	for _, s := range stacks {
		b.WriteString("\n")
		b.WriteString(s)
		b.WriteString("\n")
	}
	return b.String()
}

// goroutineID returns the id of the calling goroutine, read from the
// AllStacks returns a copy of the stack traces of every goroutine.
func AllStacks() []byte {
	var out []byte
	dump(func(b []byte) { out = bytes.Clone(b) })
	return out
}

// syncStacks picks, from a dump of every goroutine's stack (runtime.Stack
// with all set), the goroutine id and those it started, directly or not,
// the goroutine id first.
func syncStacks(all []byte, id uint64) []string {
	gs := parseStacks(all)
	in := map[uint64]bool{id: true}
	var out []string
	for _, g := range gs {
		if g.id == id {
			out = append(out, g.text)
		}
	}
	if len(out) == 0 {
		return nil
	}
	// Children follow their parents; a goroutine's children may come before
	// it in the dump, so repeat until nothing is added.
	for added := true; added; {
		added = false
		for _, g := range gs {
			if !in[g.id] && in[g.parent] {
				in[g.id], added = true, true
				out = append(out, g.text)
			}
		}
	}
	return out
}

// blockedOn reads what a goroutine's stack trace says it waits for: the
// state of its header ("chan receive", "select", "sync.Mutex.Lock") and the
// innermost frame outside the standard library, where it waits, with its
// file and line.
func blockedOn(stack string) (state, frame string) {
	lines := strings.Split(stack, "\n")
	if i, j := strings.IndexByte(lines[0], '['), strings.LastIndexByte(lines[0], ']'); i >= 0 && j > i {
		state = lines[0][i+1 : j]
	}
	for i := 1; i+1 < len(lines); i++ {
		fn, file := lines[i], lines[i+1]
		if strings.HasPrefix(fn, "created by ") {
			break
		}
		if strings.HasPrefix(fn, "\t") || !strings.HasPrefix(file, "\t") || standardLibrary(fn) {
			continue
		}
		file = strings.TrimSpace(file)
		if k := strings.LastIndex(file, " +0x"); k >= 0 {
			file = file[:k]
		}
		if k := strings.LastIndexByte(fn, '('); k > 0 && strings.HasSuffix(fn, ")") {
			fn = fn[:k]
		}
		return state, fn + " at " + file
	}
	return state, ""
}

// standardLibrary reports whether a stack frame's function
// ("sync.(*Mutex).Lock(...)", "github.com/x/y.f()") is in the standard
// library: the first element of its package's import path has no dot.
func standardLibrary(frame string) bool {
	pkg := frame
	if i := strings.LastIndexByte(pkg, '('); i > 0 && strings.HasSuffix(pkg, ")") {
		pkg = pkg[:i] // the arguments
	}
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
		if j := strings.IndexByte(pkg[i:], '.'); j >= 0 {
			pkg = pkg[:i+j]
		}
	} else if j := strings.IndexByte(pkg, '.'); j >= 0 {
		pkg = pkg[:j]
	}
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".")
}
