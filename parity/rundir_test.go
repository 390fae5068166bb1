package parity

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/utils/ptr"
)

// The server's directory and its files are the owner's only: a fake
// kube-apiserver lists the modes of what Start made, then exits.
func TestRunDirIsPrivate(t *testing.T) {
	bin, _ := fakeBin(t, "exec sleep 60", `
while [ $# -gt 0 ]; do [ "$1" = --token-auth-file ] && tokens="$2"; shift; done
cd "$(dirname "$tokens")" && stat -c '%a %n' . * && exit 1`)
	_, err := Start(t.Context(), bin)
	if err == nil {
		t.Fatal("Start succeeded with a fake server")
	}
	want := []string{"700 .", "600 etcd.log", "600 kube-apiserver.log", "600 owner", "600 sa.key", "600 sa.pub", "600 tokens.csv"}
	for _, w := range want {
		if !strings.Contains(err.Error(), "\t"+w+"\n") && !strings.HasSuffix(err.Error(), "\t"+w) {
			t.Errorf("the server's directory does not hold %q (mode, name):\n%v", w, err)
		}
	}
	if dirs := runDirs(t); len(dirs) != 0 {
		t.Errorf("left behind: %v", dirs)
	}
}

// sweepRunDirs removes the directories of processes that are gone, and
// only those.
func TestSweepRunDirs(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	self := processID(os.Getpid())
	if !strings.Contains(self, " ") {
		t.Fatalf("processID(self) = %q, want a pid and a start time", self)
	}
	selfPid := strconv.Itoa(os.Getpid())
	old := time.Now().Add(-2 * ownerlessAge)
	tests := []struct {
		name  string
		owner *string // nil: no owner file
		old   bool
		kept  bool
	}{
		{name: "this process", owner: ptr.To(self), kept: true},
		{name: "this process, pid only", owner: ptr.To(selfPid), kept: true},
		{name: "a dead process", owner: ptr.To(processID(dead.Process.Pid)), kept: false},
		{name: "a dead pid", owner: ptr.To(strconv.Itoa(dead.Process.Pid)), kept: false},
		{name: "this pid, another start", owner: ptr.To(selfPid + " 1"), kept: false},
		{name: "garbage", owner: ptr.To("x"), kept: false},
		{name: "no owner, new", kept: true},
		{name: "no owner, old", old: true, kept: false},
	}
	for i, tt := range tests {
		dir := filepath.Join(tmp, fmt.Sprintf("%s%d", runDirPrefix, i))
		if err := os.MkdirAll(filepath.Join(dir, "etcd", "member"), 0o700); err != nil {
			t.Fatal(err)
		}
		if tt.owner != nil {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(*tt.owner+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if tt.old {
			if err := os.Chtimes(dir, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Not ours to remove: a file, a link (to a dead owner's directory),
	// another name.
	target := filepath.Join(t.TempDir(), "target")
	other := filepath.Join(tmp, "other")
	for _, d := range []string{target, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(strconv.Itoa(dead.Process.Pid)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(target, filepath.Join(tmp, runDirPrefix+"link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, runDirPrefix+"file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}

	removed := sweepRunDirs(tmp)
	for i, tt := range tests {
		dir := filepath.Join(tmp, fmt.Sprintf("%s%d", runDirPrefix, i))
		_, err := os.Stat(dir)
		if kept := err == nil; kept != tt.kept {
			t.Errorf("%s: kept = %v, want %v", tt.name, kept, tt.kept)
		}
		if wasRemoved := slices.Contains(removed, dir); wasRemoved == tt.kept {
			t.Errorf("%s: sweepRunDirs returned %v", tt.name, removed)
		}
	}
	for _, p := range []string{target, other, filepath.Join(tmp, runDirPrefix+"link"), filepath.Join(tmp, runDirPrefix+"file")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// childRunDir is the body of the child processes below: it makes a
// server's directory with a process of its own (as Start does), prints
// both, and waits to be ended; with stopOnSignal when the environment says.
func childRunDir(t *testing.T) {
	s := &Server{anyExit: make(chan *process, 1)}
	var err error
	if s.dir, err = newRunDir(); err != nil {
		t.Fatal(err)
	}
	if err := s.run("/bin/sh", "sleep.log", "-c", "exec sleep 60"); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("CTRLTEST_PARITY_CHILD") == "signal" {
		defer stopOnSignal(s)()
	}
	fmt.Printf("dir %s\npid %d\nready\n", s.dir, s.procs[0].cmd.Process.Pid)
	select {} // until ended
}

// startChild runs childRunDir in a copy of the test binary and returns
// the directory and process it made.
func startChild(t *testing.T, test, mode string) (cmd *exec.Cmd, dir string, pid int) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run", "^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), "CTRLTEST_PARITY_CHILD="+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	scanner := bufio.NewScanner(out)
	for scanner.Scan() {
		line := scanner.Text()
		if v, ok := strings.CutPrefix(line, "dir "); ok {
			dir = v
		}
		if v, ok := strings.CutPrefix(line, "pid "); ok {
			pid, _ = strconv.Atoi(v)
		}
		if line == "ready" {
			break
		}
	}
	if dir == "" || pid == 0 {
		t.Fatalf("the child made no directory and process")
	}
	return cmd, dir, pid
}

// ^C or a SIGTERM (from CI) removes the directory and ends the processes,
// then ends the test binary as the signal would have.
func TestRunDirGoesWithASignal(t *testing.T) {
	if os.Getenv("CTRLTEST_PARITY_CHILD") == "signal" {
		childRunDir(t)
	}
	t.Setenv("TMPDIR", t.TempDir())
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, dir, pid := startChild(t, "TestRunDirGoesWithASignal", "signal")
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || !exit.Sys().(syscall.WaitStatus).Signaled() || exit.Sys().(syscall.WaitStatus).Signal() != sig {
				t.Errorf("the child ended with %v, want the signal %v", err, sig)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s is left behind (%v)", dir, err)
			}
			if alive(pid) {
				t.Errorf("process %d outlived the signal", pid)
			}
		})
	}
}

// A test binary killed with SIGKILL leaves its directory, which the next
// Start (newRunDir) removes; another process's live directory stays.
func TestRunDirOfAKilledRunIsSwept(t *testing.T) {
	if os.Getenv("CTRLTEST_PARITY_CHILD") == "kill" {
		childRunDir(t)
	}
	t.Setenv("TMPDIR", t.TempDir())
	live, liveDir, _ := startChild(t, "TestRunDirOfAKilledRunIsSwept", "kill")
	killed, dir, _ := startChild(t, "TestRunDirOfAKilledRunIsSwept", "kill")
	if err := killed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = killed.Wait()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the killed run's directory is gone already (%v): the test proves nothing", err)
	}
	next, err := newRunDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(next)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the next start left %s behind (%v)", dir, err)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("the next start removed a live run's directory: %v", err)
	}
	_ = live.Process.Kill()
}
