package parity

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tailLines is how many of a process's last log lines an error shows.
const tailLines = 20

// process is one process of a started server.
type process struct {
	name string
	cmd  *exec.Cmd
	tail *tailWriter
	// exited is closed once the process has exited and err is set.
	exited chan struct{}
	err    error
}

// startProcess starts path, its output written to logFile (mode 0600) and
// its last lines kept in memory. Pdeathsig kills it when the calling
// process dies, however that happens. anyExit is signalled when it exits.
func startProcess(path, logFile string, anyExit chan<- *process, args ...string) (*process, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("parity: %v; build the binaries with hack/parity-binaries.sh", err)
	}
	out, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	p := &process{name: filepath.Base(path), tail: &tailWriter{max: 16 << 10}, exited: make(chan struct{})}
	w := io.MultiWriter(out, p.tail)
	p.cmd = exec.Command(path, args...)
	p.cmd.Stdout, p.cmd.Stderr = w, w
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	// A child of the process holding its output open does not hold up Wait.
	p.cmd.WaitDelay = time.Second
	if err := p.cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("parity: starting %s: %v", p.name, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		out.Close()
		close(p.exited)
		select {
		case anyExit <- p:
		default:
		}
	}()
	return p, nil
}

// hasExited reports whether the process has exited.
func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitError describes the process's exit with its last log lines.
func (p *process) exitError(when string) error {
	status := "exited"
	if p.err != nil {
		status = p.err.Error()
	}
	return fmt.Errorf("parity: %s exited %s (%s)%s", p.name, when, status, p.lastLines())
}

// lastLines returns the process's last log lines, indented, on lines of
// their own after a heading.
func (p *process) lastLines() string {
	lines := p.tail.lines(tailLines)
	if len(lines) == 0 {
		return "; it wrote nothing"
	}
	return fmt.Sprintf("; its last %d log lines:\n\t%s", len(lines), strings.Join(lines, "\n\t"))
}

// stop ends the process group (SIGTERM, then SIGKILL after grace) and waits
// for the process.
func (p *process) stop(grace time.Duration) {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

// tailWriter keeps the last max bytes (at least) written to it.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut bool // bytes were dropped from the front
}

func (w *tailWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	if len(w.buf) > 2*w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
		w.cut = true
	}
	return len(b), nil
}

// lines returns the last n complete or final lines written, without
// empty ones.
func (w *tailWriter) lines(n int) []string {
	w.mu.Lock()
	data := bytes.Clone(w.buf)
	cut := w.cut
	w.mu.Unlock()
	if cut { // the first line is a part of one
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	var out []string
	for line := range strings.SplitSeq(string(data), "\n") {
		if line = strings.TrimRight(line, "\r"); strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}
