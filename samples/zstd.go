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
// MaxUncompressedPageSize, set in decodePart). A page shorter than
// pageWindow is encoded by an encoder of a window its size (EncodeLevel).
// Registering replaces the codec for the whole program, which is what any
// user of arrow in it wants as well.
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

// pageWindow is the window of the encoders of short pages. arrow's
// encoders have zstd's default window, 8 MiB, and each keeps a history of
// twice that, 16 MiB, allocated (and zeroed) at its first page, however
// short: the collector writes pages of a few hundred KiB every few
// seconds, and each time the garbage collector had emptied arrow's pool
// of encoders meanwhile, a new 16 MiB history took its peak RSS from 52 to
// 63 MiB (docs/PERFORMANCE.md section 1). Below its window an encoder's
// frames do not depend on the window (the frame names a window from the
// page's size, and no match reaches further back than the page), so these
// pages are the bytes arrow's encoders write (TestZstdSmallWindow); a
// page this long or longer goes to arrow's.
const pageWindow = 1 << 20

// smallEncoders are the short pages' encoders, by level, made as arrow
// makes its own but for the window.
var smallEncoders [zstd.SpeedBestCompression + 1]sync.Pool

// EncodeLevel compresses a page as arrow's codec does, a page shorter than
// pageWindow through an encoder of that window.
func (z boundedZstd) EncodeLevel(dst, src []byte, level int) []byte {
	l := zstd.EncoderLevelFromZstd(level)
	if level == compress.DefaultCompressionLevel {
		l = zstd.SpeedDefault
	}
	if len(src) >= pageWindow || l < zstd.SpeedFastest || l > zstd.SpeedBestCompression {
		return z.Codec.EncodeLevel(dst, src, level)
	}
	enc, _ := smallEncoders[l].Get().(*zstd.Encoder)
	if enc == nil {
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1),
			zstd.WithAllLitEntropyCompression(true), zstd.WithWindowSize(pageWindow))
		if err != nil {
			return z.Codec.EncodeLevel(dst, src, level)
		}
	}
	defer smallEncoders[l].Put(enc)
	return enc.EncodeAll(src, dst[:0])
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
