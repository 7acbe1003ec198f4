//go:build unix

package infile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenStreamFIFO: a FIFO is opened once and read whole, whether its
// writer comes after the open (it waits) or has written and gone before
// the read; one whose writer comes and goes without writing reads empty,
// not for ever. A device is refused as Open refuses it.
func TestOpenStreamFIFO(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		late       bool // the writer comes after OpenStream waits
	}{{"late writer", "a\nb\n", true}, {"empty", "", true}, {"early writer", "x\ny\n", false}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
			write := func() {
				w, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					t.Error(err)
					return
				}
				w.WriteString(tc.data)
				w.Close()
			}
			type opened struct {
				f    *os.File
				fifo bool
				err  error
			}
			got := make(chan opened, 1)
			start := func() {
				f, fifo, err := OpenStream(path)
				got <- opened{f, fifo, err}
			}
			if tc.late {
				go start()
				time.Sleep(50 * time.Millisecond) // OpenStream is waiting
				write()
			} else {
				// Open for reading first, as OpenStream's open does, so
				// that the writer's open does not block; the writer
				// writes and goes before OpenStream reads.
				keep, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer keep.Close()
				go start()
				time.Sleep(20 * time.Millisecond)
				write()
			}
			select {
			case o := <-got:
				if o.err != nil || !o.fifo {
					t.Fatalf("OpenStream: fifo %v, %v", o.fifo, o.err)
				}
				b, err := io.ReadAll(o.f)
				o.f.Close()
				if err != nil || string(b) != tc.data {
					t.Fatalf("read %q, %v; want %q", b, err, tc.data)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("OpenStream or its read hangs")
			}
		})
	}
	if _, _, err := OpenStream("/dev/null"); err == nil {
		t.Error("/dev/null (a device) was opened; want it refused")
	}
}
