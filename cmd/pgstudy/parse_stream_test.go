package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pgstudy/pgstudy/parse/parsetest"
)

// TestParseWarningsBounded: a file of lines not understood (2,500 bad
// diskstats lines after a real snapshot) gives its first 1,000 warnings
// on standard error and in the document, and the number of the others,
// in both: the document held every warning until the file's end (300 MB
// of such lines took 3.4 GiB) and standard error was as long as the file.
func TestParseWarningsBounded(t *testing.T) {
	b, err := os.ReadFile("../../parse/diskstats/testdata/linux-6.18.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i := range maxWarnings + 1500 {
		b = fmt.Appendf(b, "   8       0 sda bad line %d\n", i)
	}
	f := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	summary := fmt.Sprintf("warning: %s: 1500 more warnings not shown (the first 1000 are)\n", f)
	for _, format := range []string{"json", "jsonl"} {
		code, stdout, stderr := runInProcess("parse", "diskstats", "--format", format, f)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 0 || len(lines) != maxWarnings+1 || !strings.HasSuffix(stderr, summary) ||
			!strings.Contains(lines[maxWarnings-1], fmt.Sprintf(`"   8       0 sda bad line %d"`, maxWarnings-1)) {
			t.Errorf("%s: exit %d, %d lines on standard error, ending %q; want %d warnings and %q",
				format, code, len(lines), lines[len(lines)-1], maxWarnings, summary)
		}
		if format == "jsonl" {
			continue
		}
		var doc []parsed
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc) != 1 {
			t.Fatalf("json: %v, %.300s", err, stdout)
		}
		if len(doc[0].Warnings) != maxWarnings || doc[0].WarningsOmitted != 1500 || len(doc[0].Records.([]any)) != 10 {
			t.Errorf("json: %d warnings, %d omitted, %d records; want 1000, 1500 and 10",
				len(doc[0].Warnings), doc[0].WarningsOmitted, len(doc[0].Records.([]any)))
		}
	}
}

// TestParseInterruptedWholeLines: parse --format jsonl stopped by SIGINT
// or SIGTERM while it writes exits 130 or 143 with every line of its
// output whole: its buffer was written 64 KiB at a time, the last line
// cut wherever 64 KiB fell.
func TestParseInterruptedWholeLines(t *testing.T) {
	b, err := os.ReadFile("../../parse/vacuum/testdata/autovacuum/pg18-autovacuum.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		cmd := pgstudy("parse", "autovacuum-log", "--format", "jsonl", "-")
		cmd.Stdin, cmd.Stdout = parsetest.Repeat(b, 1<<30), f
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for st, _ := f.Stat(); st.Size() < 1<<20; st, _ = f.Stat() {
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(tc.sig)
		cmd.Wait()
		f.Close()
		if code := cmd.ProcessState.ExitCode(); code != tc.code {
			t.Errorf("%v: exit %d; want %d", tc.sig, code, tc.code)
		}
		written, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(written, []byte("\n"))
		for i, l := range lines {
			var rec jsonlRecord
			if i == len(lines)-1 && len(l) == 0 {
				break
			}
			if !bytes.HasSuffix(l, []byte("\n")) || json.Unmarshal(l, &rec) != nil || rec.Record == nil {
				t.Errorf("%v: line %d is not a whole record: %.100q", tc.sig, i+1, l)
				break
			}
		}
	}
}

// TestParsePipeShowsEachRecord: records read from a pipe that waits for
// more (tail -f | pgstudy parse diskstats -) are written before parse
// waits: they sat in its buffer until 64 KiB of output or the input's end.
func TestParsePipeShowsEachRecord(t *testing.T) {
	b, err := os.ReadFile("../../parse/diskstats/testdata/linux-6.18.txt")
	if err != nil {
		t.Fatal(err)
	}
	in, feed := io.Pipe()
	cmd := pgstudy("parse", "diskstats", "--format", "jsonl", "-")
	cmd.Stdin = in
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer feed.Close()
	go feed.Write(b)
	lines := make(chan int)
	go func() {
		n := 0
		for s := bufio.NewScanner(stdout); s.Scan(); {
			n++
			lines <- n
		}
		close(lines)
	}()
	timeout := time.After(20 * time.Second)
	for n := 0; n < 10; {
		select {
		case n = <-lines:
		case <-timeout:
			t.Fatalf("%d of 10 records written while the pipe stays open", n)
		}
	}
}

// TestParseWriteErrorStopsReading: parse writing to a full device (Linux's
// /dev/full) stops at the first write and says why, in both formats, long
// before the end of its input: --format json read the whole input first.
func TestParseWriteErrorStopsReading(t *testing.T) {
	b, err := os.ReadFile("../../parse/vacuum/testdata/autovacuum/pg18-autovacuum.log")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "jsonl"} {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		const copies = 20000 // 120 MB
		in := parsetest.Repeat(b, copies)
		var stderr bytes.Buffer
		cmd := pgstudy("parse", "autovacuum-log", "--format", format, "-")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = in, full, &stderr
		err = cmd.Run()
		full.Close()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitError || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%s: %v, %q; want exit 1 and the write's error", format, err, stderr.String())
		}
		if in.Left() < copies/2 {
			t.Errorf("%s: %d of %d copies of the log read before the write error stopped parse", format, copies-in.Left(), copies)
		}
	}
}

// TestParseNamedPipe: a FIFO named on the command line (as <(command)
// gives) is read as standard input is, each record written while the
// writer keeps the pipe open; the other commands refuse one.
func TestParseNamedPipe(t *testing.T) {
	b, err := os.ReadFile("../../parse/diskstats/testdata/linux-6.18.txt")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "in")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := pgstudy("parse", "diskstats", "--format", "jsonl", fifo)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until parse opens it
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	want := bytes.Count(b, []byte("\n"))
	lines := make(chan string)
	go func() {
		for s := bufio.NewScanner(stdout); s.Scan(); {
			lines <- s.Text()
		}
		close(lines)
	}()
	timeout := time.After(20 * time.Second)
	for n := 0; n < want; n++ {
		select {
		case l := <-lines:
			if !strings.HasPrefix(l, `{"file":"`+fifo+`","record":{"major":`) {
				t.Fatalf("record %d: %s", n+1, l)
			}
		case <-timeout:
			t.Fatalf("%d of %d records written while the FIFO stays open", n, want)
		}
	}
}

// TestParseCompressedPipeOpen: a gzip, bzip2 or zstd log on a pipe its
// writer keeps open gives every record before the writer closes it (the
// wait for whole lines ran on the compressed bytes, and held the stream's
// last ones back: all of a zstd log's records, 14 of 1,400 of a gzip
// one's, until a signal lost them); two gzip members one after the other
// (cat a.gz b.gz) give both members' records.
func TestParseCompressedPipeOpen(t *testing.T) {
	const base = "../../parse/vacuum/testdata/logformats/pg17-logformats."
	plain, err := pgstudy("parse", "autovacuum-log", "--format", "jsonl", base+"log").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Count(plain, []byte("\n"))
	if want < 3 {
		t.Fatalf("%d records in the plain log", want)
	}
	gz, err := os.ReadFile(base + "log.gz")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		input func() []byte
		want  int
	}{
		{"gz", func() []byte { return gz }, want},
		{"bz2", func() []byte { b, _ := os.ReadFile(base + "log.bz2"); return b }, want},
		{"zst", func() []byte { b, _ := os.ReadFile(base + "log.zst"); return b }, want},
		{"two gzip members", func() []byte { return append(slices.Clip(gz), gz...) }, 2 * want},
	} {
		if got := recordsBeforeClose(t, tc.input(), tc.want); got != tc.want {
			t.Errorf("%s: %d of %d records written while the pipe stays open", tc.name, got, tc.want)
		}
	}
}

// recordsBeforeClose feeds in to pgstudy parse autovacuum-log - on a pipe
// it keeps open, and counts the records written, up to want or for 20 s.
func recordsBeforeClose(t *testing.T, in []byte, want int) int {
	t.Helper()
	r, feed := io.Pipe()
	cmd := pgstudy("parse", "autovacuum-log", "--format", "jsonl", "-")
	cmd.Stdin = r
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer feed.Close()
	go feed.Write(in)
	lines := make(chan int)
	go func() {
		n := 0
		for s := bufio.NewScanner(stdout); s.Scan(); {
			n++
			lines <- n
		}
		close(lines)
	}()
	timeout := time.After(20 * time.Second)
	for n := 0; ; {
		select {
		case m, ok := <-lines:
			if !ok || m == want {
				return m
			}
			n = m
		case <-timeout:
			return n
		}
	}
}

// TestParseInterruptedDocument: --format json stopped by a signal, reading
// a regular file or a pipe, ends with a whole document, whose last file's
// result has the records read before the signal and says in "error" that
// the rest was not read; the exit status is the signal's. A regular
// file's document was cut wherever the signal fell, and a pipe's did not
// say it was interrupted.
func TestParseInterruptedDocument(t *testing.T) {
	b, err := os.ReadFile("../../parse/vacuum/testdata/autovacuum/pg18-autovacuum.log")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "big.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, parsetest.Repeat(b, 200<<20/len(b))); err != nil { // 200 MB
		t.Fatal(err)
	}
	f.Close()
	const want = "interrupted by a signal: the records are those read before it, the rest of the input was not read"
	for _, tc := range []struct {
		name string
		args []string
		sig  syscall.Signal
		code int
	}{
		{"file", []string{log}, syscall.SIGTERM, 143},
		{"pipe", []string{"-"}, syscall.SIGINT, 130},
	} {
		out := filepath.Join(t.TempDir(), "out.json")
		w, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		cmd := pgstudy(append([]string{"parse", "autovacuum-log"}, tc.args...)...)
		cmd.Stdin, cmd.Stdout = parsetest.Repeat(b, 1<<30), w
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for st, _ := w.Stat(); st.Size() < 1<<20; st, _ = w.Stat() {
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Signal(tc.sig)
		cmd.Wait()
		w.Close()
		var doc []parsed
		written, _ := os.ReadFile(out)
		if err := json.Unmarshal(written, &doc); err != nil || len(doc) != 1 {
			t.Errorf("%s: not a whole document of one file (%v): ...%q", tc.name, err, written[max(0, len(written)-200):])
			continue
		}
		if code := cmd.ProcessState.ExitCode(); code != tc.code || doc[0].Error != want || len(doc[0].Records.([]any)) == 0 {
			t.Errorf("%s: exit %d, %d records, error %q; want exit %d, records, and %q", tc.name, code,
				len(doc[0].Records.([]any)), doc[0].Error, tc.code, want)
		}
	}
}
