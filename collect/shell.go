package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"time"
)

// shellResult is what a shell command did.
type shellResult struct {
	Started  time.Time
	Elapsed  time.Duration
	ExitCode *int32
	Stdout   []byte
	Stderr   []byte
	Err      error
}

// runShell runs a command with sh -c. A command that starts a daemon
// without redirecting its output would hold our pipes open forever, so
// pipes are closed a moment after the command itself has exited.
func runShell(ctx context.Context, command string, env map[string]string, timeout time.Duration, stdin []byte) shellResult {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Env = mergeEnv(os.Environ(), env)
	inGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	res := shellResult{Started: time.Now()}
	err := cmd.Run()
	res.Elapsed = time.Since(res.Started)
	res.Stdout, res.Stderr = stdout.Bytes(), stderr.Bytes()
	if cmd.ProcessState != nil {
		code := int32(cmd.ProcessState.ExitCode())
		res.ExitCode = &code
	}
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		res.Err = fmt.Errorf("timed out after %s", timeout)
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			res.Err = fmt.Errorf("exited with status %d%s", ee.ExitCode(), tail(res.Stderr, res.Stdout))
		} else if !errors.Is(err, exec.ErrWaitDelay) {
			res.Err = err
		}
	}
	return res
}

// tail is the last line a failed command printed, for its error message.
func tail(outs ...[]byte) string {
	for _, o := range outs {
		o = bytes.TrimSpace(o)
		if len(o) == 0 {
			continue
		}
		if i := bytes.LastIndexByte(o, '\n'); i >= 0 {
			o = o[i+1:]
		}
		if len(o) > 300 {
			o = o[len(o)-300:]
		}
		return ": " + string(o)
	}
	return ""
}

func mergeEnv(base []string, extra map[string]string) []string {
	if len(extra) == 0 {
		return base
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := append([]string(nil), base...)
	for _, k := range keys {
		out = append(out, k+"="+extra[k])
	}
	return out
}
