package infile

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// MaxDecompressed bounds what one compressed input may decompress to. The
// readers stream, so memory does not grow with it; what it bounds is the
// time a small hostile file (a few MB of zstd expand to terabytes) can
// take. 64 GiB is many times a day of a busy server's log.
const MaxDecompressed = 64 << 30

// maxZstdWindow bounds the memory a zstd frame's header may ask for: 128
// MiB is what zstd --long writes at most by default; zstd -19 uses 8 MiB.
const maxZstdWindow = 128 << 20

// compression is a format told by its first bytes.
type compression struct {
	name  string
	magic []byte
	open  func(io.Reader) (io.Reader, func(), error) // nil: known, not read
}

var compressions = []compression{
	{"gzip", []byte{0x1f, 0x8b}, openGzip},
	{"bzip2", []byte("BZh"), func(r io.Reader) (io.Reader, func(), error) { return bzip2.NewReader(r), func() {}, nil }},
	{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd}, openZstd},
	{"xz", []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}, nil},
	{"lz4", []byte{0x04, 0x22, 0x4d, 0x18}, nil},
}

func openGzip(r io.Reader) (io.Reader, func(), error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	z, err := gzip.NewReader(br)
	if err != nil {
		return nil, nil, err
	}
	z.Multistream(false)
	return &gzipMembers{z: z, br: br}, func() { z.Close() }, nil
}

// gzipMembers reads the members of a gzip stream one after the other, as
// gzip -d does (cat a.gz b.gz). compress/gzip does so itself, but it reads
// the next member's header before it returns the last bytes of the one
// before: on a pipe left open, those bytes waited for the writer (and were
// lost to a signal). Here a member's last bytes are returned first, and
// the next header is looked for by the read after them.
type gzipMembers struct {
	z  *gzip.Reader
	br *bufio.Reader
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	n, err := g.z.Read(p)
	if err != io.EOF {
		return n, err
	}
	if n > 0 {
		return n, nil // the next Read looks for another member
	}
	if _, perr := g.br.Peek(1); perr != nil {
		return 0, io.EOF // no other member: the stream's end
	}
	if err := g.z.Reset(g.br); err != nil {
		return 0, fmt.Errorf("what follows the end of the gzip stream is not another gzip member (%v)", err)
	}
	g.z.Multistream(false)
	return g.z.Read(p)
}

func openZstd(r io.Reader) (io.Reader, func(), error) {
	z, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxZstdWindow),
		zstd.WithDecoderMaxMemory(maxZstdWindow*2))
	if err != nil {
		return nil, nil, err
	}
	return z, z.Close, nil
}

// Decompressed reads r as it is, or decompressed when its first bytes are
// those of gzip (1f 8b, as gzip and logrotate write it), bzip2 ("BZh") or
// zstd (28 b5 2f fd): told by content, never by a file's name. It reads no
// more than the first bytes until its reader is read; a damaged or
// truncated stream, or one that decompresses to more than limit bytes, is
// an error of that Read (which a parse.Lines reports with the file and the
// line it reached), never a panic or a hang. Memory stays bounded: the
// stream is decompressed as it is read. xz and lz4, known by their first
// bytes but not read, are refused with what to run instead. Close releases
// the decompressor.
func Decompressed(r io.Reader, limit int64) io.ReadCloser {
	br := bufio.NewReaderSize(r, 64<<10) // parse.Lines's size: it reads this one without another buffer
	return &decompressed{br: br, src: br, limit: limit}
}

type decompressed struct {
	br     *bufio.Reader
	src    io.Reader // what Read reads: br, or a decompressor over it
	format string    // "" until the first Read, then "text" or a compression's name
	close  func()
	n      int64
	limit  int64
	err    error
}

// Damage reads on, up to limit more bytes, a compressed input that
// Decompressed made and a parser refused, and returns the decompressor's
// error if it finds one: a bzip2 block is checked at its end, after its
// bytes were handed out, so that the bytes of a damaged one reach the
// parser, which refuses them as a file of another kind, before the
// damage is seen. Nil for an input that is not compressed, not made by
// Decompressed, or whose stream reads whole within limit.
func Damage(r io.Reader, limit int64) error {
	d, ok := r.(*decompressed)
	if !ok || d.format == "" || d.format == "text" {
		return nil
	}
	if d.err == nil {
		io.CopyN(io.Discard, d, limit)
	}
	if d.err != nil && d.err != io.EOF {
		return d.err
	}
	return nil
}

// Format is the compression found ("gzip", "bzip2", "zstd"), "" for none
// or before the first Read.
func (d *decompressed) Format() string {
	if d.format == "text" {
		return ""
	}
	return d.format
}

func (d *decompressed) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	if d.format == "" {
		if d.err = d.open(); d.err != nil {
			return 0, d.err
		}
	}
	n, err := d.src.Read(p)
	d.n += int64(n)
	if d.format != "text" && d.n > d.limit {
		d.err = fmt.Errorf("%s-compressed input that decompresses to more than %s, the most pgstudy reads of one compressed file", d.format, bytesText(d.limit))
		return 0, d.err
	}
	if err != nil && err != io.EOF && d.format != "text" {
		what := "damaged or truncated"
		if errors.Is(err, io.ErrUnexpectedEOF) {
			what = "truncated"
		}
		d.err = fmt.Errorf("the %s-compressed stream is %s (after %d bytes decompressed): %w%s", d.format, what, d.n, err, checkedLate(err))
		return n, d.err
	}
	return n, err
}

// checkedLate says, of a checksum that failed, that what was read before
// it may be damaged too: gzip and zstd check theirs at a stream's (or a
// frame's) end, after its data has been handed out, and parsed.
func checkedLate(err error) string {
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, zstd.ErrCRCMismatch) {
		return "; the checksum covers what was read before this error: records from it may hold damaged values, and are not to be trusted"
	}
	return ""
}

// open tells the format by the first bytes and starts its decompressor.
func (d *decompressed) open() error {
	d.format = "text"
	head, _ := d.br.Peek(8) // fewer at the end of a short input
	for _, c := range compressions {
		if !bytes.HasPrefix(head, c.magic) {
			continue
		}
		if c.open == nil {
			return fmt.Errorf("%s-compressed data, which pgstudy does not decompress (it reads gzip, bzip2 and zstd): decompress it first", c.name)
		}
		d.format = c.name
		z, closeFn, err := c.open(d.br)
		if err != nil {
			what := "damaged"
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				what = "truncated"
			}
			return fmt.Errorf("the %s-compressed stream is %s (its header): %w", c.name, what, err)
		}
		d.src, d.close = z, closeFn
		return nil
	}
	return nil
}

func (d *decompressed) Close() error {
	if d.close != nil {
		d.close()
		d.close = nil
	}
	d.err = errors.New("read after Close")
	return nil
}
