package vacuum

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestIndexPair checks indexPair and fieldColon against bytes.Index, which
// they replace on every line, on edge cases and on random lines of the
// bytes that matter.
func TestIndexPair(t *testing.T) {
	cases := []string{"", ":", ": ", "::  ", "a: b", "a:b: c", "x:  ", "x: : ", "x:  y:  ", ":", "]", "] ", "[1]x] y", "::: ", "a:\t  b"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for k := range b {
			b[k] = ":] xa\t"[r.IntN(6)]
		}
		cases = append(cases, string(b))
	}
	for _, c := range cases {
		b := []byte(c)
		if got, want := indexPair(b, ':', ' '), bytes.Index(b, []byte(": ")); got != want {
			t.Fatalf("indexPair(%q, ':', ' ') = %d, want %d", c, got, want)
		}
		if got, want := indexPair(b, ']', ' '), bytes.Index(b, []byte("] ")); got != want {
			t.Fatalf("indexPair(%q, ']', ' ') = %d, want %d", c, got, want)
		}
		if got, want := fieldColon(b), bytes.Index(b, []byte(":  ")); got != want {
			t.Fatalf("fieldColon(%q) = %d, want %d", c, got, want)
		}
	}
}

// TestFoldsTo checks foldsTo, which leaves to encoding/json a jsonlog
// line whose key it would read as one of the record's fields.
func TestFoldsTo(t *testing.T) {
	for _, c := range []struct {
		key  string
		want bool
	}{{"pid", true}, {"PID", true}, {"Pid", true}, {"pId", true}, {"user", false}, {"USER", false},
		{"pidx", false}, {"", false}, {"p\u00e9d", true}, {"messag", false}, {"Message", true}, {"error_Severity", true}} {
		if got := foldsTo([]byte(c.key), jsonRecordKeys...); got != c.want {
			t.Errorf("foldsTo(%q) = %v, want %v", c.key, got, c.want)
		}
	}
}

// TestBSDStamp checks bsdStamp against the shape it stands for, on
// random lines of the bytes that matter.
func TestBSDStamp(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []string{"Dec  4 10:00:01 host", "Dec 04 10:00:01", "dec 04 10:00:01", "Dec 4 10:00:01", "Dec 04 10:00:0", "De1 04 10:00:01", "@ec 04 10:00:01", "[ec 04 10:00:01"}
	for range 50000 {
		b := []byte("Dec 04 10:00:01")
		for range 1 + r.IntN(2) {
			const set = "a Z0:9@[`{/\x00\xff"
			b[r.IntN(len(b))] = set[r.IntN(len(set))]
		}
		cases = append(cases, string(b[:r.IntN(len(b)+1)]), string(b))
	}
	for _, c := range cases {
		if got, want := bsdStamp([]byte(c)), shape([]byte(c), "aaa _d dd:dd:dd"); got != want {
			t.Fatalf("bsdStamp(%q) = %v, want %v", c, got, want)
		}
	}
}
