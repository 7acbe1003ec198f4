package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// psqlProc is a psql client the collector talks to while it runs: its
// script arrives on standard input in parts (psqlScript), and it says
// where it is with marker lines on standard output. Both streams are
// drained all the time, whatever psql prints, so that a statement with a
// huge result cannot block psql on a full pipe; psql exiting at any
// moment ends every wait.
type psqlProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	token string

	stdout  markerWriter
	stderr  lockedBuffer
	exited  chan struct{} // closed once psql has exited and its streams are read
	waitErr error
	started time.Time
	elapsed time.Duration
}

// psqlMark is a marker line seen on psql's standard output.
type psqlMark struct {
	name, value string
	at          time.Time
}

// startPsql starts command (the configuration's psql command line) with
// "-f -" so that psql reads its script from standard input as a file:
// \prompt then reads its answer from standard input too, and prints its
// text to standard output, rather than asking a terminal. ctx's end
// kills psql and everything it started.
func startPsql(ctx context.Context, command string, env map[string]string, token string) (*psqlProc, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command+" -f -")
	cmd.Env = mergeEnv(os.Environ(), env)
	inGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	p := &psqlProc{cmd: cmd, token: token, exited: make(chan struct{})}
	p.stdout.prefix = []byte("pgstudy:")
	p.stdout.token = token
	p.stdout.marks = make(chan psqlMark, 16)
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.waitErr = cmd.Wait()
		p.elapsed = time.Since(p.started)
		close(p.exited)
	}()
	return p, nil
}

// send writes a part of the script. A psql that has exited makes it fail
// (a broken pipe), which the wait that follows explains.
func (p *psqlProc) send(text string) {
	io.WriteString(p.stdin, text)
}

// wait returns the marker named name, and the markers seen before it;
// an error when psql exits before printing it (saying it stopped when,
// "before the statement") or ctx ends.
func (p *psqlProc) wait(ctx context.Context, name, when string) (psqlMark, []psqlMark, error) {
	var seen []psqlMark
	for {
		select {
		case m := <-p.stdout.marks:
			if m.name == name {
				return m, seen, nil
			}
			seen = append(seen, m)
		case <-p.exited:
			// The marker may have come with psql's last output.
			select {
			case m := <-p.stdout.marks:
				if m.name == name {
					return m, seen, nil
				}
				seen = append(seen, m)
				continue
			default:
			}
			return psqlMark{}, seen, fmt.Errorf("psql stopped %s (%s)%s", when, p.exitText(), tail(p.stderr.Bytes(), p.stdout.Bytes()))
		case <-ctx.Done():
			return psqlMark{}, seen, ctx.Err()
		}
	}
}

// interrupt asks psql to cancel its statement, as Ctrl-C does: psql
// sends the server a cancel request, and with ON_ERROR_STOP exits on
// the error. Killing it instead would leave the statement running on
// the server.
func (p *psqlProc) interrupt() {
	interruptGroup(p.cmd)
}

// finish closes psql's input, so that it ends once it has run what it
// was sent, and waits for it to exit, at most timeout; then it is
// killed. The result holds everything psql printed.
func (p *psqlProc) finish(timeout time.Duration) shellResult {
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(timeout):
		killGroup(p.cmd)
		<-p.exited
	}
	res := shellResult{Started: p.started, Elapsed: p.elapsed, Stdout: p.stdout.Bytes(), Stderr: p.stderr.Bytes()}
	if p.cmd.ProcessState != nil {
		code := int32(p.cmd.ProcessState.ExitCode())
		res.ExitCode = &code
	}
	var ee *exec.ExitError
	switch {
	case errors.As(p.waitErr, &ee):
		res.Err = fmt.Errorf("psql %s%s", p.exitText(), tail(res.Stderr, res.Stdout))
	case p.waitErr != nil && !errors.Is(p.waitErr, exec.ErrWaitDelay):
		res.Err = p.waitErr
	}
	return res
}

// exitText says how psql exited: its status or the signal that killed it.
func (p *psqlProc) exitText() string {
	st := p.cmd.ProcessState
	if st == nil {
		return "it did not start"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by signal " + ws.Signal().String()
	}
	return "exit status " + strconv.Itoa(st.ExitCode())
}

// psqlReachTimeout bounds psql's start, connection and settings, before
// its statement.
const psqlReachTimeout = time.Minute

// psqlStatement runs the test's statement through psql, inside its
// window: psql starts, connects, applies the run's settings and names its
// backend, then waits at its "before" marker while the window opens; the
// statement runs, and at the "after" marker the window closes. psql's
// start, its connection and its settings are outside the window; the
// statement timeout counts from the statement.
func (c *collector) psqlStatement(ctx context.Context, it Item, rec *recorder, meta *session, sets []string) error {
	run := &rec.b.Run
	env, err := libpqEnv(it.Config.DSN)
	if err != nil {
		return err
	}
	script := psqlInput(sets, it.Test.SQL, c.version[it.Config.Name], newToken())
	p, err := startPsql(ctx, it.Config.Psql, env, script.token)
	if err != nil {
		return fmt.Errorf("start psql: %w", err)
	}
	record := func(start, end time.Time) shellResult {
		res := p.finish(10 * time.Second)
		rec.clientRun(script.String(), start, end.Sub(start), res)
		return res
	}
	p.send(script.prologue)
	rctx, cancel := context.WithTimeout(ctx, psqlReachTimeout)
	before, seen, err := p.wait(rctx, "before", "before the statement")
	cancel()
	if err != nil {
		record(p.started, time.Now())
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("psql did not reach the statement within %s (its connection or settings)", psqlReachTimeout)
		}
		return err
	}
	for _, m := range seen {
		if n, err := strconv.ParseInt(m.value, 10, 32); m.name == "backend" && err == nil {
			pid := int32(n)
			run.BackendPID = &pid
		}
	}
	var pid int32
	if run.BackendPID != nil {
		pid = *run.BackendPID
	}
	w, err := c.openWindow(ctx, rec, meta, pid, false)
	if err != nil {
		record(before.at, time.Now())
		return err
	}
	start := time.Now()
	p.send(script.body)
	sctx, cancel := c.statementTimeout(ctx, it.Test)
	after, _, err := p.wait(sctx, "after", "during the statement")
	timedOut := sctx.Err() == context.DeadlineExceeded
	cancel()
	end := after.at
	if err != nil {
		end = time.Now()
	}
	var flush func()
	if err == nil {
		// The answer to the "after" marker, then (15+) the flush of the
		// session's statistics; psql ends with its input.
		flush = func() {
			p.send(script.epilogue)
			p.finish(10 * time.Second)
		}
	} else if timedOut {
		p.interrupt()
	}
	statsErr := w.close(ctx, flush)
	run.StartedAt, run.EndedAt, run.ElapsedNs = start, end, end.Sub(start).Nanoseconds()
	res := record(start, end)
	switch {
	case timedOut:
		return c.timeoutErr(it.Test)
	case err != nil:
		return err
	case res.Err != nil:
		return res.Err
	}
	return statsErr
}

// markerWriter keeps psql's standard output as it comes and hands each
// marker line to marks as soon as its newline arrives.
type markerWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	scanned int // bytes of buf whose lines have been looked at
	prefix  []byte
	token   string
	marks   chan psqlMark
}

func (w *markerWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	all := w.buf.Bytes()
	for {
		nl := bytes.IndexByte(all[w.scanned:], '\n')
		if nl < 0 {
			return len(b), nil
		}
		line := all[w.scanned : w.scanned+nl]
		w.scanned += nl + 1
		if bytes.HasPrefix(line, w.prefix) {
			if m, ok := parseMark(string(line[len(w.prefix):]), w.token); ok {
				select {
				case w.marks <- m:
				default: // never more than a few; a wait that missed one fails on psql's exit
				}
			}
		}
	}
}

// parseMark reads "NAME TOKEN [VALUE]" with the run's token.
func parseMark(s, token string) (psqlMark, bool) {
	f := strings.Fields(s)
	if len(f) < 2 || len(f) > 3 || f[1] != token {
		return psqlMark{}, false
	}
	m := psqlMark{name: f[0], at: time.Now()}
	if len(f) == 3 {
		m.value = f[2]
	}
	return m, true
}

func (w *markerWriter) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.buf.Bytes())
}

// lockedBuffer is a buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.buf.Bytes())
}
