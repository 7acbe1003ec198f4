package parse

import (
	"encoding/json"
	"io"
	"os"
)

// Opt is a figure a tool may not print, in the records a parser reads by
// the thousand (pgbench's progress lines, sysbench's intervals): Valid says
// it was printed. A row of Opts holds no pointer, so a slice of rows grows
// by a plain copy and the garbage collector does not scan it, where a
// *float64 a figure cost both (and an allocation each, or a batch).
//
// In JSON an Opt is its value, or null when not Valid; a field tagged
// omitzero is left out when not Valid, as a nil pointer tagged omitempty
// is.
type Opt[T any] struct {
	V     T
	Valid bool
}

// Some is v, printed.
func Some[T any](v T) Opt[T] { return Opt[T]{V: v, Valid: true} }

// IsZero reports whether o is absent, for the omitzero option of
// encoding/json.
func (o Opt[T]) IsZero() bool { return !o.Valid }

// Ptr is a pointer to a copy of the value, or nil when o is absent.
func (o Opt[T]) Ptr() *T {
	if !o.Valid {
		return nil
	}
	v := o.V
	return &v
}

// MarshalJSON writes the value, or null.
func (o Opt[T]) MarshalJSON() ([]byte, error) {
	if !o.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(o.V)
}

// UnmarshalJSON reads a value, or null as absent.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*o = Opt[T]{}
		return nil
	}
	if err := json.Unmarshal(b, &o.V); err != nil {
		return err
	}
	o.Valid = true
	return nil
}

// Size is the number of bytes r holds when it tells without being read
// (a regular file, a bytes.Reader, strings.Reader or bytes.Buffer), or -1.
// A parser that holds what it reads refuses a known size over its bound
// before reading any of it.
func Size(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			if off, err := v.Seek(0, io.SeekCurrent); err == nil {
				return st.Size() - off
			}
		}
	}
	return -1
}

// HeldTooLong is the refusal of an input longer than MaxText by a parser
// that holds all its records (a what, "pgbench"), at line, or at 0 when
// the input is refused on its size before any of it is read: the bound
// that keeps its memory in proportion to one run's output.
func HeldTooLong(source string, line int, what string) error {
	return Errorf(source, line, "input longer than %d MiB, the limit of a %s output, whose records are held whole; expected one run's output", MaxText>>20, what)
}
