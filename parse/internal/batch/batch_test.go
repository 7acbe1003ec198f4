package batch

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestNew: each value is its own, the batches grow to 256, and a run of
// values costs one allocation a batch.
func TestNew(t *testing.T) {
	var b Of[int64]
	var ps []*int64
	for i := range 1000 {
		ps = append(ps, b.New(int64(i)))
	}
	for i, p := range ps {
		if *p != int64(i) {
			t.Fatalf("value %d is %d", i, *p)
		}
	}
	// 8+16+32+64+128 = 248, then batches of 256.
	if b.batches != 5+3 {
		t.Errorf("%d batches for 1000 values, want 8", b.batches)
	}
	var c Of[float64]
	if n := testing.AllocsPerRun(1, func() {
		for range 256 {
			c.New(1)
		}
	}); n > 2 {
		t.Errorf("%v allocations for 256 values, want at most 2", n)
	}
}

// TestZero: each value is zero and its own, also after New, and the
// batches are shared with New.
func TestZero(t *testing.T) {
	type big struct {
		a [8]int64
		p *int64
	}
	var b Of[big]
	var ps []*big
	for i := range 300 {
		p := b.Zero()
		if *p != (big{}) {
			t.Fatalf("value %d is not zero: %v", i, *p)
		}
		p.a[0] = int64(i)
		ps = append(ps, p, b.New(big{a: [8]int64{-1}}))
	}
	for i := range 300 {
		if ps[2*i].a[0] != int64(i) || ps[2*i+1].a[0] != -1 {
			t.Fatalf("values %d were overwritten: %v %v", i, ps[2*i].a[0], ps[2*i+1].a[0])
		}
	}
	// 600 values: 8+16+32+64+128 = 248, then two of 256.
	if b.batches != 7 {
		t.Errorf("%d batches for 600 values, want 7", b.batches)
	}
}

// TestOne: a slice of one holds its value, and appending to it leaves
// the values handed out after it as they were.
func TestOne(t *testing.T) {
	var b Of[int]
	var ones [][]int
	for i := range 100 {
		ones = append(ones, b.One(i))
	}
	for i, s := range ones {
		if len(s) != 1 || cap(s) != 1 || s[0] != i {
			t.Fatalf("slice %d: %v, cap %d", i, s, cap(s))
		}
		ones[i] = append(s, -1)
	}
	for i, s := range ones {
		if len(s) != 2 || s[0] != i || s[1] != -1 {
			t.Fatalf("slice %d after appends: %v", i, s)
		}
	}
}

// TestRun: a run's values are zero, in a row, and their own.
func TestRun(t *testing.T) {
	var b Of[int64]
	var runs [][]int64
	for i := range 100 {
		r := b.Run(1 + i%12)
		for j := range r {
			if r[j] != 0 {
				t.Fatalf("run %d: value %d is %d, not zero", i, j, r[j])
			}
			r[j] = int64(i)
		}
		runs = append(runs, r, b.One(-1))
	}
	for i := 0; i < len(runs); i += 2 {
		for _, v := range runs[i] {
			if v != int64(i/2) || runs[i+1][0] != -1 {
				t.Fatalf("run %d was overwritten: %v %v", i/2, runs[i], runs[i+1])
			}
		}
	}
}

// TestReserve: after Reserve(n), n values take one allocation, and more
// come from batches as before.
func TestReserve(t *testing.T) {
	var b Of[[64]byte]
	if n := testing.AllocsPerRun(1, func() {
		b = Of[[64]byte]{}
		b.Reserve(100)
		for range 100 {
			b.Zero()
		}
	}); n != 1 {
		t.Errorf("%v allocations for 100 reserved values, want 1", n)
	}
	p, q := b.Zero(), b.New([64]byte{1})
	if *p != ([64]byte{}) || q[0] != 1 || p == q {
		t.Error("values after the reserved ones are not their own")
	}
}

// TestRows: the rows come back in order, through chunks and without, the
// last is the one added last, and an hour's rows cost two allocations of
// their size, not five.
func TestRows(t *testing.T) {
	for _, n := range []int{0, 1, 16, 17, 5000} {
		var r Rows[int]
		for i := range n {
			r.Add(i)
			if *r.Last() != i {
				t.Fatalf("last of %d rows is %d", i+1, *r.Last())
			}
		}
		all := r.All()
		if len(all) != n || r.Len() != n || (n == 0) != (all == nil) {
			t.Fatalf("%d rows: All has %d, Len %d", n, len(all), r.Len())
		}
		for i, v := range all {
			if v != i {
				t.Fatalf("%d rows: row %d is %d", n, i, v)
			}
		}
	}
	var last Rows[int]
	if last.Last() != nil {
		t.Error("the last of no rows is not nil")
	}
	type row struct{ a, b, c [5]float64 } // 120 bytes
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var r Rows[row]
	for range 3600 {
		r.Add(row{})
	}
	all := r.All()
	runtime.ReadMemStats(&after)
	size := uint64(len(all)) * uint64(unsafe.Sizeof(row{}))
	if got := after.TotalAlloc - before.TotalAlloc; got > size*5/2 {
		t.Errorf("allocated %d bytes for %d of rows; want at most 2.5 times", got, size)
	}
}

// TestRowsExpect: rows of an input of known size fill one chunk, handed
// out without a copy, when the lines are about as long as those before
// Expect; when they are shorter, the rows go on in more chunks, all kept.
func TestRowsExpect(t *testing.T) {
	for _, tc := range []struct {
		before         int // the rows added before Expect
		lines, lineLen int // the rows' lines after them, and their length
		one            bool
	}{
		{1, 999, 100, true},
		{1, 999, 91, true}, // a tenth shorter
		{1, 999, 50, false},
		{16, 999, 100, true},
		{64, 999, 100, true}, // a few chunks: moved into the room
		{256, 999, 100, true},
		{300, 999, 100, false}, // past the first chunks: the room is the next
	} {
		var r Rows[int]
		for i := range tc.before {
			r.Add(i)
		}
		r.Expect(int64(tc.lines*tc.lineLen), 100)
		for i := range tc.lines {
			r.Add(tc.before + i)
		}
		all := r.All()
		n := tc.before + tc.lines
		if len(all) != n || all[n-1] != n-1 || all[0] != 0 {
			t.Fatalf("%+v: %d rows", tc, len(all))
		}
		if one := len(r.full) == 0; one != tc.one {
			t.Errorf("%+v: in one chunk %v; want %v", tc, one, tc.one)
		}
	}
}

// TestText checks that a Text's strings are their bytes, stay so when the
// bytes they were made of change and when later strings fill the chunk
// and the next, and that an empty string and one longer than a chunk are
// made.
func TestText(t *testing.T) {
	txt := NewText(8)
	buf := []byte("abcde")
	var got []string
	for _, s := range []string{"abcde", "xyz", "", "0123456789ab", "q"} {
		copy(buf, s)
		got = append(got, String(&txt, buf[:len(s)]))
		for i := range buf {
			buf[i] = '#'
		}
		buf = append(buf[:0], make([]byte, 16)...)
	}
	got = append(got, String(&txt, "from a string"))
	want := []string{"abcde", "xyz", "", "0123456789ab", "q", "from a string"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("string %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestRowsRoom: the rows before Room stay where they are (a pointer to
// one still reads it after more rows), the rows after it fill the room,
// which All hands out with the first rows copied to its front; past the
// room the rows go on in chunks, joined in order.
func TestRowsRoom(t *testing.T) {
	for _, tc := range []struct{ before, left, after int }{
		{0, 10, 10}, {1, 10, 10}, {5, 10, 3}, {5, 10, 0}, {40, 100, 100}, {40, 100, 5000}, {300, 1, 2},
	} {
		var r Rows[int]
		var early []*int
		for i := range tc.before {
			*r.Next() = i
			early = append(early, r.Last())
		}
		r.Room(tc.left)
		if tc.before > 0 && *r.Last() != tc.before-1 {
			t.Fatalf("%+v: last after Room is %d", tc, *r.Last())
		}
		var first *int
		for i := range tc.after {
			p := r.Next()
			*p = tc.before + i
			if i == 0 {
				first = p
			}
			if *r.Last() != tc.before+i {
				t.Fatalf("%+v: last is %d, want %d", tc, *r.Last(), tc.before+i)
			}
		}
		for i, p := range early {
			if *p != i {
				t.Fatalf("%+v: row %d moved before All: %d", tc, i, *p)
			}
		}
		all := r.All()
		n := tc.before + tc.after
		if len(all) != n || r.Len() != n {
			t.Fatalf("%+v: All has %d rows, Len %d; want %d", tc, len(all), r.Len(), n)
		}
		for i, v := range all {
			if v != i {
				t.Fatalf("%+v: row %d is %d", tc, i, v)
			}
		}
		if inRoom := tc.after > 0 && tc.after <= tc.left; inRoom && &all[tc.before] != first {
			t.Errorf("%+v: the room was copied, not handed out", tc)
		}
	}
}
