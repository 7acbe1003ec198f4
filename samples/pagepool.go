package samples

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// pagePool is the allocator the Parquet reader gets its page buffers
// from when a Reader reads parts: each column chunk's reader takes a
// buffer for the compressed page, one for the decompressed page and one
// for the dictionary, and gives them back when it is closed. A capture of
// 100,000 runs has tens of thousands of column chunks, whose buffers from
// the Go heap were a fifth of everything the analysis allocated; here
// they are kept between chunks, by size class (powers of two, 4 KiB to 64
// MiB; a larger one comes from the Go heap, and goes back to it). Buffers
// start at a 64-byte boundary, as the Go allocator's do, and are handed
// out zeroed, as new memory is: the reader's code was written against
// that allocator.
type pagePool struct{}

const (
	minPageClass = 12 // 4 KiB
	maxPageClass = 26 // 64 MiB
)

var pageClasses [maxPageClass - minPageClass + 1]sync.Pool

// pageClass is the size class of a buffer of size bytes: the least k with
// 1<<k >= size, at least minPageClass; false above maxPageClass.
func pageClass(size int) (int, bool) {
	k := max(bits.Len(uint(max(size, 1)-1)), minPageClass)
	return k, k <= maxPageClass
}

func (pagePool) Allocate(size int) []byte {
	k, ok := pageClass(size)
	if !ok {
		return memory.DefaultAllocator.Allocate(size)
	}
	if p, _ := pageClasses[k-minPageClass].Get().(*[]byte); p != nil {
		b := (*p)[:size]
		clear(b)
		return b
	}
	buf := make([]byte, 1<<k+64)
	shift := -int(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))) & 63
	return buf[shift : shift+size : shift+1<<k]
}

func (a pagePool) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		if size > len(b) {
			clear(b[len(b):size])
		}
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

// Free keeps b for a later Allocate of its class. A buffer not of a class
// (its capacity is not one) was not made here, and is left to the
// garbage collector.
func (pagePool) Free(b []byte) {
	c := cap(b)
	k, ok := pageClass(c)
	if !ok || c != 1<<k || c == 0 {
		return
	}
	b = b[:0]
	pageClasses[k-minPageClass].Put(&b)
}

var _ memory.Allocator = pagePool{}
