package jsonw

import (
	"math"
	"strconv"
	"testing"
)

// intCases are the numbers where a digit is added or the writing of
// appendUint changes path: each power of ten and its neighbours, the
// limits of each width.
func intCases() []int64 {
	cases := []int64{0, 1, 9, 10, 11, 99, 100, 101, 999, math.MaxInt32, math.MaxUint32, math.MaxInt64, math.MinInt64}
	for p := int64(1); p <= math.MaxInt64/10; p *= 10 {
		cases = append(cases, p-1, p, p+1, 10*p-1)
	}
	for _, c := range cases {
		cases = append(cases, -c)
	}
	return cases
}

// TestAppendInt: appendInt and appendUint write what strconv writes,
// after bytes already there and into a slice with no room left.
func TestAppendInt(t *testing.T) {
	for _, x := range intCases() {
		checkInt(t, x)
	}
	for _, x := range []uint64{math.MaxUint64, math.MaxUint64 - 1, 1e19 - 1, 1e19, 1<<63 + 5} {
		checkUint(t, x)
	}
}

func checkInt(t *testing.T, x int64) {
	t.Helper()
	if got, want := appendInt([]byte("x"), x), strconv.AppendInt([]byte("x"), x, 10); string(got) != string(want) {
		t.Errorf("appendInt(%d) = %s, want %s", x, got, want)
	}
	checkUint(t, uint64(x))
}

func checkUint(t *testing.T, x uint64) {
	t.Helper()
	full := []byte("abc")[:3:3]
	if got, want := appendUint(full, x), strconv.AppendUint([]byte("abc"), x, 10); string(got) != string(want) {
		t.Errorf("appendUint(%d) = %s, want %s", x, got, want)
	}
}

func FuzzAppendInt(f *testing.F) {
	for _, x := range intCases() {
		f.Add(x)
	}
	f.Fuzz(checkInt)
}
