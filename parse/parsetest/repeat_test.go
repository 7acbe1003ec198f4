package parsetest

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// TestRepeat: the bytes read are b n times, whatever the reads' sizes.
func TestRepeat(t *testing.T) {
	b := []byte("line one\nline two\n")
	for _, n := range []int{0, 1, 7} {
		if err := iotest.TestReader(Repeat(b, n), bytes.Repeat(b, n)); err != nil {
			t.Errorf("%d times: %v", n, err)
		}
		got, err := io.ReadAll(iotest.OneByteReader(Repeat(b, n)))
		if err != nil || !bytes.Equal(got, bytes.Repeat(b, n)) {
			t.Errorf("%d times, a byte a read: %q, %v", n, got, err)
		}
	}
}

// TestMade: the bytes read are the pieces in order, whatever the reads'
// sizes, an empty piece included.
func TestMade(t *testing.T) {
	piece := func(b []byte, i int) []byte {
		if i == 2 {
			return b
		}
		return append(b, bytes.Repeat([]byte{byte('a' + i)}, i+1)...)
	}
	want := []byte("abbddddeeeee")
	if err := iotest.TestReader(Made(5, piece), want); err != nil {
		t.Error(err)
	}
	got, err := io.ReadAll(iotest.OneByteReader(Made(5, piece)))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("a byte a read: %q, %v; want %q", got, err, want)
	}
}
