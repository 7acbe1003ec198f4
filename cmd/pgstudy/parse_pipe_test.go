package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pipedParse runs pgstudy parse kind --format jsonl - reading a real pipe
// (os.Pipe, as tail -f gives it) into which it writes in, which it leaves
// open; it returns the command and the lines of standard output as they
// come.
func pipedParse(t *testing.T, kind string, in []byte, stderr *bytes.Buffer) (*exec.Cmd, chan string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := pgstudy("parse", kind, "--format", "jsonl", "-")
	cmd.Stdin, cmd.Stderr = r, stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() {
		w.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	if _, err := w.Write(in); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		for s := bufio.NewScanner(stdout); s.Scan(); {
			lines <- s.Text()
		}
		close(lines)
	}()
	return cmd, lines
}

// recordLines waits for n lines of jsonl and returns the records' first
// lines ("line").
func recordLines(t *testing.T, lines chan string, n int, what string) []int {
	t.Helper()
	var got []int
	timeout := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s: output ended after %d of %d records", what, len(got), n)
			}
			var rec struct {
				Record struct{ Line int } `json:"record"`
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("%s: %v: %q", what, err, l)
			}
			got = append(got, rec.Record.Line)
		case <-timeout:
			t.Fatalf("%s: %d of %d records written while the pipe stays open", what, len(got), n)
		}
	}
	return got
}

// firstLines is the first n lines of file.
func firstLines(t *testing.T, file string, n int) []byte {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	return bytes.Join(lines[:n], nil)
}

// TestParseEntryBeforeMoreInput: an autovacuum entry, and a 15+ VACUUM
// VERBOSE table, are written once their last line ("system usage") is
// read from the pipe, which stays open: they waited for the next line,
// for ever on a quiet server.
func TestParseEntryBeforeMoreInput(t *testing.T) {
	for _, tc := range []struct {
		kind, file string
		lines      int
		want       []int
	}{
		{"autovacuum-log", "../../parse/vacuum/testdata/autovacuum/pg17-autovacuum.log", 20, []int{6, 10}},
		{"autovacuum-log", "../../parse/vacuum/testdata/autovacuum/pg13-autovacuum.log", 13, []int{6, 13}},
		{"vacuum", "../../parse/vacuum/testdata/verbose/pg17-vacuum-verbose.psql.txt", 17, []int{3}},
	} {
		var stderr bytes.Buffer
		_, lines := pipedParse(t, tc.kind, firstLines(t, tc.file, tc.lines), &stderr)
		if got := recordLines(t, lines, len(tc.want), tc.file); !equalInts(got, tc.want) {
			t.Errorf("%s: records at lines %v; want %v", tc.file, got, tc.want)
		}
	}
}

// TestParseSignalEndsPipe: SIGINT or SIGTERM to parse reading a pipe ends
// its input, not the process: the record it held (14's last table, whose
// end only the next message tells) is written, then parse exits 130 or 143.
// It was lost.
func TestParseSignalEndsPipe(t *testing.T) {
	file := "../../parse/vacuum/testdata/verbose/pg14-vacuum-verbose.psql.txt"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	in := b[:bytes.Index(b, []byte("\nVACUUM\n"))+1] // the command tag, which ends the statement, not yet printed
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		var stderr bytes.Buffer
		cmd, lines := pipedParse(t, "vacuum", in, &stderr)
		recordLines(t, lines, 1, "before the signal")
		cmd.Process.Signal(tc.sig)
		got := recordLines(t, lines, 1, "after the signal")
		cmd.Wait()
		st := cmd.ProcessState
		if got[0] != 25 || st.ExitCode() != tc.code || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("%v: record at line %v, exit %d, %q; want line 25, exit %d", tc.sig, got, st.ExitCode(), stderr.String(), tc.code)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
