package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/samples/infile"
)

// utf8Check passes an input through, noting the line of its first bytes
// that are not UTF-8: JSON holds only UTF-8, so the values that hold such
// bytes (a Latin-1 client_encoding, a log written in another encoding)
// are written with U+FFFD in their place, and the file's result says so
// in a warning rather than let a value change without a word. It costs a
// pass over the bytes read (utf8.Valid, and counting lines until the
// first bad byte), a small part of any parser's.
type utf8Check struct {
	r       io.Reader
	lines   int    // the newlines before the bytes not checked yet
	bad     int    // the line of the first bytes not UTF-8, or 0
	text    string // the bytes around them, for the warning
	pending []byte // the start of a character the last read cut
}

func (c *utf8Check) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.bad == 0 {
		c.scan(p[:n])
		if err == io.EOF && len(c.pending) > 0 && c.bad == 0 {
			c.bad = c.lines + 1 // the input ends inside a character
		}
	}
	return n, err
}

// scan checks b, the next bytes of the input.
func (c *utf8Check) scan(b []byte) {
	if len(c.pending) > 0 {
		buf := append(c.pending, b[:min(len(b), utf8.UTFMax)]...)
		if !utf8.FullRune(buf) {
			c.pending = buf
			return
		}
		r, size := utf8.DecodeRune(buf)
		if r == utf8.RuneError && size <= 1 {
			c.found(c.lines, buf, 0)
			return
		}
		b = b[size-len(c.pending):]
		c.pending = nil
	}
	if utf8.Valid(b) {
		c.lines += bytes.Count(b, []byte{'\n'})
		return
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			if !utf8.FullRune(b[i:]) {
				c.lines += bytes.Count(b[:i], []byte{'\n'})
				c.pending = append([]byte(nil), b[i:]...)
				return
			}
			c.found(c.lines+bytes.Count(b[:i], []byte{'\n'}), b, i)
			return
		}
		i += size
	}
	c.lines += bytes.Count(b, []byte{'\n'})
}

// found notes the first bytes not UTF-8, b[i], on the line after the
// first n, with up to 40 bytes of its line on each side for the warning
// to show (the bytes themselves are written escaped).
func (c *utf8Check) found(n int, b []byte, i int) {
	c.bad = n + 1
	from, to := max(0, i-40), min(len(b), i+40)
	if k := bytes.LastIndexByte(b[from:i], '\n'); k >= 0 {
		from += k + 1
	}
	if k := bytes.IndexByte(b[i:to], '\n'); k >= 0 {
		to = i + k
	}
	c.text = string(b[from:to])
}

// sizedUTF8Check is a utf8Check of an input whose size is known (a
// regular file): it tells the size through, as parse.Size asks, so that
// the parsers still size their buffers from it and refuse an input over
// their bound before reading it.
type sizedUTF8Check struct{ *utf8Check }

func (s sizedUTF8Check) Len() int { return int(max(parse.Size(s.r), 0)) }

// checkUTF8 wraps r in a utf8Check, sized when r's size is known.
func checkUTF8(r io.Reader) (io.Reader, *utf8Check) {
	c := &utf8Check{r: r}
	if parse.Size(r) >= 0 {
		return sizedUTF8Check{c}, c
	}
	return c, c
}

// notUTF8 is the warning of a file with bytes that are not UTF-8.
const notUTF8 = "bytes that are not UTF-8, the first on this line (a client_encoding or a log in LATIN1?): the values that hold them are written to JSON with U+FFFD in their place"

// warning is the file's warning, or nil.
func (c *utf8Check) warning(source string) *parse.Warning {
	if c.bad == 0 {
		return nil
	}
	return &parse.Warning{Source: source, Line: c.bad, Text: c.text, Msg: notUTF8}
}

// thenWarn is recs, then c's warning, if any, to warn: the file's result
// is closed after its last record, so its warnings are told before. A
// file refused before any record was written gets none: no value was
// written with U+FFFD (a gzip or UTF-16 file refused as another kind).
func thenWarn(recs iter.Seq2[any, error], c *utf8Check, source string, warn func(parse.Warning), decomp io.Reader) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		told, wrote := false, false
		tell := func() {
			if w := c.warning(source); w != nil && !told {
				warn(*w)
				told = true
			}
		}
		for rec, err := range recs {
			if err != nil {
				if wrote {
					tell() // before the error, the sequence's last pair
				}
				err = damaged(err, decomp)
			}
			wrote = wrote || err == nil
			if !yield(rec, err) {
				return
			}
		}
		tell()
	}
}

// damaged is err, a parser's refusal of a compressed input (decomp, nil
// for one that is not), or the damage the decompressor finds when it
// reads on: the bytes of a damaged bzip2 block reach the parser before
// its check fails, and were refused as a file of another kind.
func damaged(err error, decomp io.Reader) error {
	if err == nil || decomp == nil || errors.Is(err, errInterrupted) {
		return err
	}
	if d := infile.Damage(decomp, maxDamageRead); d != nil && !strings.Contains(err.Error(), d.Error()) {
		msg := err.Error()
		var se *parse.SyntaxError
		if errors.As(err, &se) {
			msg = se.Msg // its file is named first
			return fmt.Errorf("%s: %w; what came out of it before was refused at line %d: %s", se.Source, d, se.Line, msg)
		}
		return fmt.Errorf("%w; what came out of it before was refused: %s", d, msg)
	}
	return err
}

// maxDamageRead is how far a refused compressed input is read on for its
// damage: a bzip2 block is at most 900 kB, decompressed some megabytes.
const maxDamageRead = 64 << 20
