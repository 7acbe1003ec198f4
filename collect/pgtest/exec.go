package pgtest

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// command returns a command that runs prog as the server's OS user.
func (c *Cluster) command(prog string, args ...string) *exec.Cmd {
	var cmd *exec.Cmd
	if c.RunAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.RunAs, "--", prog}, args...)...)
	} else {
		cmd = exec.Command(prog, args...)
	}
	cmd.Env = cleanEnv()
	return cmd
}

// run runs prog as the server's OS user and returns its combined output.
// The output goes through a file, not a pipe: pg_ctl start leaves a server
// running that must not hold the pipe open and make us wait on it.
func (c *Cluster) run(prog string, args ...string) (string, error) {
	cmd := c.command(prog, args...)
	f, err := os.CreateTemp("", "pgtest-out-")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = c.Dir
	runErr := cmd.Run()
	out, _ := os.ReadFile(f.Name())
	if runErr != nil {
		runErr = fmt.Errorf("%s: %w", shellJoin(cmd.Args), runErr)
	}
	return strings.TrimSpace(string(out)), runErr
}

func (c *Cluster) shellCmd(prog string, args ...string) string {
	return shellJoin(c.command(prog, args...).Args)
}

// cleanEnv is the environment without libpq/PostgreSQL variables (PGDATA,
// PGPORT, ...) that could point the tools at some other server.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "PGSTUDY_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// readFrom returns the file's content from offset on ("" if unreadable).
func readFrom(path string, offset int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
