package golden

import (
	"bytes"
	"io"
	"iter"
	"reflect"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// Seq is the shape of a parser that yields its records as it reads.
type Seq[R any] func(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[R, error]

// SeqFold checks a sequence against the parser of a whole input that is
// its fold: in read through seq gives the warnings read gives, in order,
// and its error as the last pair, and when read succeeds, records that
// fold makes into what read returns. Each record that writes itself
// (AppendJSON) writes what encoding/json writes. It returns the records
// read before the end or the error.
func SeqFold[T, R any](t testing.TB, in []byte, read Parser[T], seq Seq[R], fold func([]R) T) []R {
	t.Helper()
	want, wantWarns, wantErr := read(bytes.NewReader(in), "in")
	var (
		warns []parse.Warning
		recs  []R
		err   error
		after int // pairs after the error
	)
	for rec, e := range seq(bytes.NewReader(in), "in", func(w parse.Warning) { warns = append(warns, w) }) {
		switch {
		case err != nil:
			after++
		case e != nil:
			err = e
		default:
			AppendJSON(t, &rec)
			recs = append(recs, rec)
		}
	}
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() || after > 0 {
		t.Fatalf("the sequence ends with %v (and %d pairs after it); the whole input's error is %v", err, after, wantErr)
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Fatalf("the sequence's warnings:\n%v\nthe whole input's:\n%v", warns, wantWarns)
	}
	if err == nil {
		if got := fold(recs); !reflect.DeepEqual(got, want) {
			t.Fatalf("the sequence's records fold into\n%+v\nthe whole input gives\n%+v", got, want)
		}
	}
	return recs
}

// AppendJSON checks that v, when it writes itself (AppendJSON), writes
// after other bytes what an encoding/json Encoder with
// SetEscapeHTML(false) writes, and fails where encoding/json fails.
func AppendJSON(t testing.TB, v any) {
	t.Helper()
	a, ok := v.(interface{ AppendJSON([]byte) ([]byte, error) })
	if !ok {
		return
	}
	want, ok := EncodingJSON(v)
	got, err := a.AppendJSON([]byte("x"))
	if ok != (err == nil) || ok && string(got) != "x"+want {
		t.Fatalf("AppendJSON:\n%s (%v)\nencoding/json (%v):\nx%s", got, err, ok, want)
	}
}

// FuzzSeq fuzzes a sequence from the real outputs of testdata/dir and
// seeds against the parser of the whole input that is its fold
// (SeqFold).
func FuzzSeq[T, R any](f *testing.F, dir string, seeds []string, read Parser[T], seq Seq[R], fold func([]R) T) {
	addSeeds(f, dir, seeds)
	f.Fuzz(func(t *testing.T, in []byte) { SeqFold(t, in, read, seq, fold) })
}
