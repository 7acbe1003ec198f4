package batch

import "unsafe"

// Text makes strings of bytes that do not last (a line in a reader's
// buffer) by copying them into chunks that are written once and then only
// read, each string a part of a chunk (unsafe.String): an allocation a
// chunk instead of one a string. A string keeps its chunk in memory, so
// Text is for the strings of one parse, kept together.
type Text struct {
	chunk []byte
	size  int
}

// NewText is a Text of chunks of size bytes (a longer string gets a chunk
// of its own length).
func NewText(size int) Text { return Text{size: size} }

// String returns b as a string in a chunk.
func String[T []byte | string](t *Text, b T) string {
	if len(b) == 0 {
		return ""
	}
	if cap(t.chunk)-len(t.chunk) < len(b) {
		t.chunk = make([]byte, 0, max(t.size, len(b)))
	}
	start := len(t.chunk)
	t.chunk = append(t.chunk, b...)
	return unsafe.String(&t.chunk[start], len(b)) // never written again
}
