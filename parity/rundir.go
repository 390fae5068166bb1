package parity

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A started server's files (etcd's data, the service-account key, the
// admin token, the logs) live in a directory of the temporary directory
// named runDirPrefix*, readable by its owner only. Stop removes it; a run
// that ends without Stop (a panic, go test's -timeout, SIGKILL) leaves it,
// and the next Start removes it once the process that made it is gone: the
// directory's ownerFile names that process.
const (
	runDirPrefix = "ctrltest-parity-"
	ownerFile    = "owner"
	// ownerlessAge is how old a directory without an owner file (made by
	// an earlier version of this package, or by a process killed before it
	// wrote the file) must be before it counts as left behind.
	ownerlessAge = time.Hour
)

// newRunDir makes a server's directory (mode 0700) in the temporary
// directory, recording this process as its owner, after removing the
// directories that dead processes left there.
func newRunDir() (string, error) {
	sweepRunDirs(os.TempDir())
	dir, err := os.MkdirTemp("", runDirPrefix)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", errors.Join(err, os.RemoveAll(dir))
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(processID(os.Getpid())+"\n"), 0o600); err != nil {
		return "", errors.Join(err, os.RemoveAll(dir))
	}
	return dir, nil
}

// processID identifies a running process: its pid and its start time (in
// clock ticks after boot), so that a pid used again by another process
// does not pass for the owner. The start time is left out where /proc
// does not give it.
func processID(pid int) string {
	if start, ok := startTime(pid); ok {
		return strconv.Itoa(pid) + " " + start
	}
	return strconv.Itoa(pid)
}

// startTime returns field 22 of /proc/<pid>/stat, and false when the
// process does not run (a zombie has exited).
func startTime(pid int) (string, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return "", false
	}
	fields := strings.Fields(string(data[i+1:])) // from field 3, the state
	if len(fields) < 20 || fields[0] == "Z" || fields[0] == "X" {
		return "", false
	}
	return fields[19], true
}

// ownerAlive reports whether the process an owner file names still runs.
func ownerAlive(owner string) bool {
	f := strings.Fields(owner)
	if len(f) == 0 {
		return false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return false
	}
	if start, ok := startTime(pid); ok {
		return len(f) < 2 || f[1] == start
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		return false // /proc works and has no such (live) process
	}
	return syscall.Kill(pid, 0) == nil
}

// sweepRunDirs removes the server directories in tmp that are left behind:
// owned by this user, and either naming an owner that no longer runs, or
// without an owner file and older than ownerlessAge. It returns the
// directories it removed.
func sweepRunDirs(tmp string) []string {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), runDirPrefix) {
			continue // a link named like one is not ours to follow
		}
		dir := filepath.Join(tmp, e.Name())
		info, err := os.Lstat(dir)
		if err != nil || !info.IsDir() {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			continue
		}
		owner, err := os.ReadFile(filepath.Join(dir, ownerFile))
		switch {
		case err == nil && ownerAlive(string(owner)):
			continue
		case errors.Is(err, os.ErrNotExist) && time.Since(info.ModTime()) < ownerlessAge:
			continue
		case err != nil && !errors.Is(err, os.ErrNotExist):
			continue
		}
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// stopOnSignal stops s (removing its directory) when the process gets
// SIGINT or SIGTERM, then lets the signal end the process as it would have
// without this. The returned function undoes it.
func stopOnSignal(s *Server) (cancel func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case sig := <-sigs:
			if err := s.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "parity: stopping the server on", sig, err)
			}
			signal.Reset(sig)
			_ = syscall.Kill(os.Getpid(), sig.(syscall.Signal))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
		wg.Wait()
	}
}
