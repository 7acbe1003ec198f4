package infile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestOpen: a regular file opens; a FIFO (with no writer: it would block
// an os.Open for ever), a folder, a device and a link to a FIFO are each
// refused at once, saying what they are.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "study.yaml")
	os.WriteFile(file, []byte("configs: []\n"), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no FIFOs here")
	} else if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(fifo, link)
	if f, err := Open(file); err != nil {
		t.Fatal(err)
	} else {
		f.Close()
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "is a FIFO (named pipe), not a regular file"},
		{link, "is a FIFO (named pipe), not a regular file"},
		{dir, "is a folder, not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
		{"/dev/urandom", "is a character device, not a regular file"},
	} {
		done := make(chan error, 1)
		go func() {
			f, err := Open(c.path)
			if f != nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.path+" "+c.want) || !isNotRegular(err) {
				t.Errorf("%s: %v, want %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Open(%s) blocked", c.path)
		}
	}
}

// TestReadFile: the limit is the most read, and one byte more is an error
// naming the file and the limit.
func TestReadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.csv")
	os.WriteFile(path, []byte(strings.Repeat("x", 1024)), 0o644)
	if b, err := ReadFile(path, 1024, "a manifest"); err != nil || len(b) != 1024 {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
	_, err := ReadFile(path, 1023, "a manifest")
	if err == nil || err.Error() != path+" is larger than 1023 bytes, the most pgstudy reads of a manifest" {
		t.Errorf("%v", err)
	}
	if _, err := ReadFile(path, 512, "a manifest"); err == nil || !strings.HasSuffix(err.Error(), "larger than 512 bytes, the most pgstudy reads of a manifest") {
		t.Errorf("%v", err)
	}
}

// TestLines: a reader of lines up to max bytes passes them on whole, and
// stops at the first longer one naming it, however the reads are split.
func TestLines(t *testing.T) {
	in := "a,b\nccc\n" + strings.Repeat("x", 10) + "\nlast\n"
	for _, chunk := range []int{1, 3, 64} {
		r := lines(iotest.OneByteReader(strings.NewReader(in)), 5)
		if chunk > 1 {
			r = lines(&chunked{strings.NewReader(in), chunk}, 5)
		}
		got, err := io.ReadAll(r)
		var long *LineTooLong
		if !errors.As(err, &long) || long.Line != 3 || long.Max != 5 {
			t.Errorf("chunks of %d: error %v, want line 3 longer than 5 bytes", chunk, err)
		}
		if !strings.HasPrefix(string(got), "a,b\nccc\n") || strings.Contains(string(got), "last") {
			t.Errorf("chunks of %d: passed on %q", chunk, got)
		}
	}
	if got, err := io.ReadAll(lines(strings.NewReader("12345\n12345"), 5)); err != nil || string(got) != "12345\n12345" {
		t.Errorf("lines of exactly max: %q, %v", got, err)
	}
}

type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// TestCSVRecords: a quoted field's newlines do not reset the bound; the
// record is named by the line it starts on.
func TestCSVRecords(t *testing.T) {
	in := "a,b\n\"x\ny\",1\n\"" + strings.Repeat("q\n", 10) + "\",2\nlast\n"
	got, err := io.ReadAll(CSVRecords(strings.NewReader(in), 12))
	var long *LineTooLong
	if !errors.As(err, &long) || long.Line != 4 {
		t.Errorf("error %v, want the record of line 4", err)
	}
	if string(got) != "a,b\n\"x\ny\",1\n" {
		t.Errorf("passed on %q", got)
	}
	if got, err := io.ReadAll(CSVRecords(strings.NewReader("\"a\"\"b\",1\nc\n"), 12)); err != nil || len(got) != 11 {
		t.Errorf("an escaped quote: %q, %v", got, err)
	}
}

// isNotRegular reports whether err is a NotRegular refusal.
func isNotRegular(err error) bool {
	var nr *NotRegular
	return errors.As(err, &nr)
}
