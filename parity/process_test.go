package parity

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeBin writes etcd and kube-apiserver shell scripts into a directory of
// their own, each recording its pid in the file $CTRLTEST_FAKE_PIDS first,
// and isolates the temporary directory (for Start's run directory). It
// returns the directory and a function that reads the recorded pids.
func fakeBin(t *testing.T, etcd, apiserver string) (dir string, pids func() []int) {
	t.Helper()
	dir = t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("CTRLTEST_FAKE_PIDS", pidFile)
	t.Setenv("TMPDIR", t.TempDir())
	for name, body := range map[string]string{"etcd": etcd, "kube-apiserver": apiserver} {
		script := "#!/bin/sh\necho $$ >>\"$CTRLTEST_FAKE_PIDS\"\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return dir, func() []int {
		data, _ := os.ReadFile(pidFile)
		var out []int
		for f := range strings.FieldsSeq(string(data)) {
			pid, _ := strconv.Atoi(f)
			out = append(out, pid)
		}
		return out
	}
}

// runDirs lists the server directories in the temporary directory.
func runDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), runDirPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// A server process that exits fails Start at once (not after the minute
// of the readiness wait), with its last log lines, and leaves nothing
// behind: no process, no directory.
func TestStartNoticesAnExitAtOnce(t *testing.T) {
	const sleep = "exec sleep 60"
	tests := []struct {
		name            string
		etcd, apiserver string
		want            []string
		notWant         []string
	}{{
		name:      "etcd",
		etcd:      `i=1; while [ $i -le 30 ]; do echo "etcd line $i"; i=$((i+1)); done; exit 3`,
		apiserver: sleep,
		want:      []string{"parity: etcd exited before the server was ready (exit status 3); its last 20 log lines:\n\tetcd line 11\n", "\tetcd line 30"},
		notWant:   []string{"etcd line 10\n", runDirPrefix},
	}, {
		name:      "kube-apiserver",
		etcd:      sleep,
		apiserver: `echo "Error: unknown flag: --bogus" >&2; exit 1`,
		want:      []string{"parity: kube-apiserver exited before the server was ready (exit status 1); its last 1 log lines:\n\tError: unknown flag: --bogus"},
		notWant:   []string{runDirPrefix},
	}, {
		name:      "killed, silent",
		etcd:      sleep,
		apiserver: `kill -9 $$`,
		want:      []string{"parity: kube-apiserver exited before the server was ready (signal: killed); it wrote nothing"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin, pids := fakeBin(t, tt.etcd, tt.apiserver)
			start := time.Now()
			s, err := Start(t.Context(), bin)
			took := time.Since(start)
			if err == nil {
				_ = s.Stop()
				t.Fatal("Start succeeded with a server process that exits")
			}
			if took > 10*time.Second {
				t.Errorf("Start took %v to notice the exit", took)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Start's error does not contain %q:\n%v", w, err)
				}
			}
			for _, nw := range tt.notWant {
				if strings.Contains(err.Error(), nw) {
					t.Errorf("Start's error contains %q:\n%v", nw, err)
				}
			}
			if dirs := runDirs(t); len(dirs) != 0 {
				t.Errorf("left behind: %v", dirs)
			}
			for _, pid := range pids() {
				if alive(pid) {
					t.Errorf("process %d outlived the failed Start", pid)
				}
			}
		})
	}
}

// A server that runs but is never ready fails Start when ctx ends, with
// both processes' last log lines (not a directory that is about to go).
func TestStartNotReadyShowsLogs(t *testing.T) {
	bin, _ := fakeBin(t, "echo etcd is up; exec sleep 60", "echo waiting for etcd; exec sleep 60")
	// Long enough for both fakes to have written their line on a loaded
	// machine (1 s was not, once, under a CI rehearsal beside other builds).
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	s, err := Start(ctx, bin)
	if err == nil {
		_ = s.Stop()
		t.Fatal("Start succeeded with a server that is never ready")
	}
	for _, w := range []string{"parity: kube-apiserver not ready: ", "\netcd; its last 1 log lines:\n\tetcd is up", "\nkube-apiserver; its last 1 log lines:\n\twaiting for etcd"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Start's error does not contain %q:\n%v", w, err)
		}
	}
	if strings.Contains(err.Error(), runDirPrefix) {
		t.Errorf("Start's error points at the removed directory:\n%v", err)
	}
}

// A server process that exits after Start is reported by Err (and so by
// Shared) and by Stop; Err is nil while both run and after Stop.
func TestErrReportsAnExitedProcess(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s := &Server{anyExit: make(chan *process, 1)}
	var err error
	if s.dir, err = newRunDir(); err != nil {
		t.Fatal(err)
	}
	if err := s.run("/bin/sh", "etcd.log", "-c", "exec sleep 60"); err != nil {
		t.Fatal(err)
	}
	// The second process exits once the test has made the file go: not
	// before Err has been asked while both run (it used to read /dev/null
	// and could exit first on a loaded machine).
	gate := filepath.Join(t.TempDir(), "go")
	if err := s.run("/bin/sh", "kube-apiserver.log", "-c", `while [ ! -e "$0" ]; do sleep 0.01; done; echo "panic: "; exit 2`, gate); err != nil {
		t.Fatal(err)
	}
	if err := s.Err(); err != nil {
		t.Errorf("Err while both run: %v", err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.anyExit:
	case <-time.After(10 * time.Second):
		t.Fatal("the exit was not noticed")
	}
	const want = "parity: sh exited while the server was in use (exit status 2); its last 1 log lines:\n\tpanic: "
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Err = %v, want %q", err, want)
	}
	if err := s.Stop(); err == nil || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("Stop = %v, want the earlier exit", err)
	}
	if err := s.Err(); err != nil {
		t.Errorf("Err after Stop: %v", err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

func TestTailWriter(t *testing.T) {
	w := &tailWriter{max: 64}
	for i := range 100 {
		fmt.Fprintf(w, "line %d\r\n", i)
		if i%10 == 0 {
			fmt.Fprintln(w, "   ")
		}
	}
	fmt.Fprint(w, "no newline")
	got := w.lines(3)
	want := []string{"line 98", "line 99", "no newline"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines(3) = %q, want %q", got, want)
	}
	all := w.lines(1000)
	if len(w.buf) > 2*w.max {
		t.Errorf("the writer keeps %d bytes, want at most %d", len(w.buf), 2*w.max)
	}
	for _, l := range all {
		if !strings.HasPrefix(l, "line ") && l != "no newline" {
			t.Errorf("a cut or empty line is shown: %q", l)
		}
	}
	if empty := (&tailWriter{max: 64}).lines(3); len(empty) != 0 {
		t.Errorf("an empty writer's lines: %q", empty)
	}
}
