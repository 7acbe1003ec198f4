package samples

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestPagePool: buffers are aligned, zeroed even when reused, of the size
// asked for; Reallocate keeps the contents; a freed buffer is used again
// for its class only; sizes above the classes come from the Go heap.
func TestPagePool(t *testing.T) {
	var a pagePool
	aligned := func(b []byte) bool { return cap(b) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b[:1])))%64 == 0 }
	tests := []struct {
		size    int
		wantCap int
	}{
		{0, 4 << 10},
		{1, 4 << 10},
		{4 << 10, 4 << 10},
		{4<<10 + 1, 8 << 10},
		{3 << 20, 4 << 20},
		{64 << 20, 64 << 20},
		{64<<20 + 1, 64<<20 + 1}, // the Go heap's, not pooled
	}
	for _, tt := range tests {
		b := a.Allocate(tt.size)
		if len(b) != tt.size || cap(b) != tt.wantCap || !aligned(b) {
			t.Errorf("Allocate(%d): len %d cap %d aligned %v, want cap %d", tt.size, len(b), cap(b), aligned(b), tt.wantCap)
		}
		for i := range b {
			b[i] = 0xff
		}
		a.Free(b)
		again := a.Allocate(tt.size)
		if !bytes.Equal(again, make([]byte, tt.size)) {
			t.Errorf("Allocate(%d) after a Free: not zeroed", tt.size)
		}
		a.Free(again)
	}
	b := a.Allocate(100)
	copy(b, "kept")
	b = a.Reallocate(50, b)
	if len(b) != 50 || string(b[:4]) != "kept" {
		t.Errorf("Reallocate smaller: %q", b[:4])
	}
	b[:61][60] = 7 // beyond the length, within the room
	b = a.Reallocate(5000, b)
	if len(b) != 5000 || string(b[:4]) != "kept" || b[60] != 0 || cap(b) != 8<<10 {
		t.Errorf("Reallocate larger: %q, byte 60 %d, cap %d", b[:4], b[60], cap(b))
	}
	a.Free(make([]byte, 100, 100)) // not of a class: left alone
	if c := cap(a.Allocate(100)); c != 4<<10 {
		t.Errorf("a foreign buffer was handed out: cap %d", c)
	}
}
