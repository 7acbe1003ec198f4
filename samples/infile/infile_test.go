package infile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
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
			if err == nil || !strings.Contains(err.Error(), c.path+" "+c.want) || !IsNotRegular(err) {
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
