package samples

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// arrow's zstd codec encodes with encoders it keeps per level (since
// arrow-go v18), but decodes with a decoder that lets a frame grow to
// 64 GiB: a page a few kilobytes long whose frame does not say its size
// would be decoded until memory runs out. This codec encodes with arrow's
// and decodes with a decoder bounded to maxDecodedPage; a page whose header
// claims more is refused before it is decoded (ReaderProperties'
// MaxUncompressedPageSize, set in decodePart). Registering replaces the
// codec for the whole program, which is what any user of arrow in it wants
// as well.
func init() {
	arrows, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		panic(err)
	}
	compress.RegisterCodec(compress.Codecs.Zstd, boundedZstd{arrows})
}

// boundedZstd is arrow's zstd codec with a bounded decoder. It is not a
// streaming codec, so the Parquet reader decodes whole pages through it.
type boundedZstd struct{ compress.Codec }

// maxDecodedPage is the most one page may decompress to: a client's
// output of a gigabyte is the largest value a capture is made to hold.
const maxDecodedPage = 1 << 30

var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecodedPage))
})

// DecodeWithError decodes a page; the Parquet reader calls it rather than
// Decode, and reports its error as a damaged page.
func (boundedZstd) DecodeWithError(dst, src []byte) ([]byte, error) {
	d, err := zstdDecoder()
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	return d.DecodeAll(src, dst[:0])
}

// Decode is DecodeWithError for callers of the plain Codec interface,
// which has no error: it panics, as arrow's codecs do.
func (z boundedZstd) Decode(dst, src []byte) []byte {
	out, err := z.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}
