package main

import (
	"io"
	"testing"
	"time"
)

// TestEndableWholeLines: an endable hands out whole lines while more may
// come; once ended, it finishes the line it handed out in part and ends,
// without the line being written (a partial line is never read), even
// while a read of its input waits for ever.
func TestEndableWholeLines(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	end := make(chan struct{})
	e := newEndable(pr, end)
	go pw.Write([]byte("first line\nsecond line\nthird, cut"))
	read := func(n int) string {
		p := make([]byte, n)
		k, err := e.Read(p)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return string(p[:k])
	}
	if got := read(100); got != "first line\nsecond line\n" {
		t.Errorf("read %q; want the whole lines only", got)
	}
	go func() { time.Sleep(50 * time.Millisecond); close(end) }()
	if n, err := e.Read(make([]byte, 100)); n != 0 || err != io.EOF {
		t.Errorf("ended while waiting: %d bytes, %v; want io.EOF and not the cut line", n, err)
	}

	pr, pw = io.Pipe()
	defer pw.Close()
	end = make(chan struct{})
	e = newEndable(pr, end)
	go pw.Write([]byte("abcdef\nghi\n"))
	if got := read(3); got != "abc" {
		t.Fatalf("read %q; want abc", got)
	}
	close(end)
	if got := read(100); got != "def\n" {
		t.Errorf("after the end, read %q; want the rest of the line handed out in part", got)
	}
	if _, err := e.Read(make([]byte, 100)); err != io.EOF {
		t.Errorf("then %v; want io.EOF", err)
	}
}
