package batch

import "testing"

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
