package samples

import (
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow/go/v17/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// The zstd codec of arrow v17 builds a new encoder for every page it
// compresses at a given level, which is how the Parquet writer always calls
// it; an encoder allocates tens of megabytes of tables (one set per CPU). A
// run's parts have dozens of pages, so committing a run allocated hundreds
// of megabytes and spent most of its time zeroing them. This codec keeps
// single-threaded encoders for reuse, per level, instead. It writes the same
// zstd frames; decoding is unchanged. Registering replaces the codec for the
// whole program, which is what any user of arrow in it wants as well.
func init() {
	compress.RegisterCodec(compress.Codecs.Zstd, pooledZstd{})
}

type pooledZstd struct{}

// zstdPools keeps idle encoders per level. A buffered channel rather than
// a sync.Pool: a pool is emptied at every garbage collection, and a commit
// allocates enough to collect often, so the encoders were rebuilt anyway.
var (
	zstdPoolsMu sync.Mutex
	zstdPools   = map[zstd.EncoderLevel]chan *zstd.Encoder{}
	zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecodedPage))
		if err != nil {
			panic(err)
		}
		return d
	})
)

func zstdLevel(level int) zstd.EncoderLevel {
	if level == compress.DefaultCompressionLevel {
		return zstd.SpeedDefault
	}
	return zstd.EncoderLevelFromZstd(level)
}

func zstdPool(level zstd.EncoderLevel) chan *zstd.Encoder {
	zstdPoolsMu.Lock()
	defer zstdPoolsMu.Unlock()
	p := zstdPools[level]
	if p == nil {
		p = make(chan *zstd.Encoder, runtime.GOMAXPROCS(0))
		zstdPools[level] = p
	}
	return p
}

func (pooledZstd) EncodeLevel(dst, src []byte, level int) []byte {
	l := zstdLevel(level)
	p := zstdPool(l)
	var e *zstd.Encoder
	select {
	case e = <-p:
	default:
		var err error
		// EncodeAll uses one encoder at a time: concurrency 1 keeps it
		// from allocating one per CPU.
		e, err = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(l),
			zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err)
		}
	}
	out := e.EncodeAll(src, dst[:0])
	select {
	case p <- e:
	default:
	}
	return out
}

func (z pooledZstd) Encode(dst, src []byte) []byte {
	return z.EncodeLevel(dst, src, compress.DefaultCompressionLevel)
}

// maxDecodedPage is the most one page may decompress to: a client's
// output of a gigabyte is the largest value a capture is made to hold.
const maxDecodedPage = 1 << 30

func (pooledZstd) Decode(dst, src []byte) []byte {
	if cap(dst) > maxDecodedPage {
		panic(fmt.Errorf("a page of %d bytes that says it decompresses to %d, more than any page pgstudy writes (%d)", len(src), cap(dst), maxDecodedPage))
	}
	out, err := zstdDecoder().DecodeAll(src, dst[:0])
	if err != nil {
		// The Codec interface has no error; arrow's codec panics too.
		// Reader.readPart turns the panic into an error naming the part.
		panic(err)
	}
	return out
}

func (pooledZstd) CompressBound(n int64) int64 {
	// ZSTD_COMPRESSBOUND from zstd.h.
	extra := int64(0)
	if n < 128<<10 {
		extra = ((128 << 10) - n) >> 11
	}
	return n + (n >> 8) + extra
}

func (pooledZstd) NewReader(r io.Reader) io.ReadCloser {
	d, err := zstd.NewReader(r)
	if err != nil {
		return errReadCloser{err}
	}
	return d.IOReadCloser()
}

func (pooledZstd) NewWriter(w io.Writer) io.WriteCloser {
	e, _ := zstd.NewWriter(w)
	return e
}

func (pooledZstd) NewWriterLevel(w io.Writer, level int) (io.WriteCloser, error) {
	return zstd.NewWriter(w, zstd.WithEncoderLevel(zstdLevel(level)))
}

type errReadCloser struct{ err error }

func (e errReadCloser) Read([]byte) (int, error) { return 0, e.err }
func (e errReadCloser) Close() error             { return nil }
