package explain

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// jsonDecoder reads JSON strictly (RFC 8259, as encoding/json does), keeping the
// offset of what it reads so that every error names its line. It is a
// scanner rather than encoding/json's Decoder.Token, which is several
// times slower.
type jsonDecoder struct {
	data   string
	pos    int
	source string
	depth  int
	// nl counts the newlines before pos: JSON has them only in white
	// space, all of which skip reads (a string holding one is refused),
	// so skip counts them, and the line of pos, which every key is
	// read with, costs nothing.
	nl int
	// The plan's nodes, allocated together: a node each was an
	// allocation of 920 bytes.
	nodes batch.Of[Node]
}

// newJSONDecoder is a decoder of data, with room for as many nodes as
// data has "Node Type" keys, up to maxReserved (a key written with an
// escape, which no server writes, makes the batch grow as it is used).
func newJSONDecoder(data string, source string) *jsonDecoder {
	d := &jsonDecoder{data: data, source: source}
	// Counted without the opening quote: strings.Count looks for the
	// first byte first, and a plan is mostly quotes.
	d.nodes.Reserve(min(strings.Count(data, `Node Type"`), maxReserved))
	return d
}

// newNode is a new node of the plan, from the decoder's batch.
func (d *jsonDecoder) newNode() *Node { return d.nodes.Zero() }

// lineAt is the 1-based line of byte offset off.
func (d *jsonDecoder) lineAt(off int) int {
	if off == d.pos {
		return d.nl + 1
	}
	off = min(max(off, 0), len(d.data))
	return strings.Count(d.data[:off], "\n") + 1 // an error's: once
}

// line is the line of the next byte to read.
func (d *jsonDecoder) line() int { return d.nl + 1 }

func (d *jsonDecoder) errorf(line int, format string, args ...any) error {
	return parse.Errorf(d.source, line, format, args...)
}

// syntax is an error about the byte at the current position, or about the
// input's end.
func (d *jsonDecoder) syntax(context string) error {
	if d.pos >= len(d.data) {
		end := len(strings.TrimRight(d.data, " \t\r\n"))
		return d.errorf(d.lineAt(end), "unexpected end of JSON input (truncated?)")
	}
	return d.errorf(d.line(), "invalid character %s %s", quoteChar(d.data[d.pos]), context)
}

// quoteChar formats a byte as encoding/json's errors do.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	if c >= utf8.RuneSelf {
		s = fmt.Sprintf(`"\x%02x"`, c)
	}
	return "'" + s[1:len(s)-1] + "'"
}

func (d *jsonDecoder) skip() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ':
			// psql indents a plan by its depth: eight spaces at a
			// time, one comparison of a word.
			if d.pos+8 <= len(d.data) && d.data[d.pos:d.pos+8] == "        " {
				d.pos += 8
				continue
			}
			d.pos++
		case '\n':
			d.nl++
			d.pos++
		case '\t', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, or 0 at the end.
func (d *jsonDecoder) peek() byte {
	d.skip()
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

func (d *jsonDecoder) enter() error {
	d.depth++
	if d.depth > maxDepth {
		return d.errorf(d.line(), "nested deeper than %d levels", maxDepth)
	}
	return nil
}

// object reads an object, calling f with each key and its line; f must
// read the key's value.
func (d *jsonDecoder) object(what string, f func(key string, line int) error) error {
	if c := d.peek(); c != '{' {
		return d.mismatch(what, "a JSON object")
	}
	d.pos++
	if err := d.enter(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		if d.peek() != '"' {
			return d.syntax("looking for beginning of object key string")
		}
		line := d.line()
		key, err := d.readString()
		if err != nil {
			return err
		}
		if d.peek() != ':' {
			return d.syntax("after object key")
		}
		d.pos++
		if err := f(key, line); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return d.syntax("after object key:value pair")
		}
	}
}

// array reads an array, calling f with the line of each element; f must
// read the element.
func (d *jsonDecoder) array(what string, f func(line int) error) error {
	if c := d.peek(); c != '[' {
		return d.mismatch(what, "a JSON array")
	}
	d.pos++
	if err := d.enter(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for {
		d.skip()
		if err := f(d.line()); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return d.syntax("after array element")
		}
	}
}

// mismatch is the error for a value of the wrong kind: it reads the value
// to say what it is (or reports the syntax error that stops it).
func (d *jsonDecoder) mismatch(what, want string) error {
	line := d.line()
	v, err := d.value()
	if err != nil {
		return err
	}
	if what != "" {
		what += ": "
	}
	return d.errorf(line, "%sexpected %s, found %s", what, want, describe(v))
}

// value reads any JSON value: map[string]any, []any, string, json.Number,
// bool or nil.
func (d *jsonDecoder) value() (any, error) {
	switch c := d.peek(); {
	case c == '{':
		m := map[string]any{}
		err := d.object("", func(key string, _ int) error {
			v, err := d.value()
			m[key] = v
			return err
		})
		return m, err
	case c == '[':
		a := []any{}
		err := d.array("", func(int) error {
			v, err := d.value()
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		return d.readString()
	case c == '-' || c >= '0' && c <= '9':
		n, err := d.readNumber()
		return json.Number(n), err
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.syntax("looking for beginning of value")
}

func (d *jsonDecoder) literal(word string) error {
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.data) || d.data[d.pos] != word[i] {
			return d.syntax(fmt.Sprintf("in literal %s (expecting %s)", word, quoteChar(word[i])))
		}
		d.pos++
	}
	return nil
}

// readNumber reads a number as JSON writes it and returns its text.
func (d *jsonDecoder) readNumber() (string, error) {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return "", d.syntax("in numeric literal")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return "", d.syntax("after decimal point in numeric literal")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return "", d.syntax("in exponent of numeric literal")
		}
	}
	return d.data[start:d.pos], nil
}

// readString reads a string, decoding escapes; invalid UTF-8 becomes
// U+FFFD, as with encoding/json.
func (d *jsonDecoder) readString() (string, error) {
	d.pos++ // the opening quote
	start := d.pos
	d.pos += plainRun(d.data[d.pos:])
	if d.pos < len(d.data) && d.data[d.pos] == '"' {
		s := d.data[start:d.pos]
		d.pos++
		return s, nil // a part of the input: no copy
	}
	// The string has escapes or non-ASCII text: decode it into b.
	var b strings.Builder
	b.WriteString(d.data[start:d.pos])
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return b.String(), nil
		case c < 0x20:
			return "", d.syntax("in string literal")
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(d.data[d.pos:])
			b.WriteRune(r) // utf8.RuneError for an invalid byte
			d.pos += size
		case c != '\\':
			b.WriteByte(c)
			d.pos++
		default:
			if err := d.escape(&b); err != nil {
				return "", err
			}
		}
	}
	return "", d.syntax("")
}

// escape decodes the escape at the current position (its backslash) into
// b and moves past it.
func (d *jsonDecoder) escape(b *strings.Builder) error {
	d.pos++
	if d.pos >= len(d.data) {
		return d.syntax("")
	}
	e := d.data[d.pos]
	switch e {
	case '"', '\\', '/':
		b.WriteByte(e)
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		d.pos++
		r, err := d.unicodeEscape()
		if err != nil {
			return err
		}
		b.WriteRune(r)
		return nil
	default:
		return d.syntax("in string escape code")
	}
	d.pos++
	return nil
}

// unicodeEscape reads the four hex digits of a \u escape and, for the first
// half of a UTF-16 surrogate pair, the escape of the second: the rune, or
// U+FFFD for half a pair.
func (d *jsonDecoder) unicodeEscape() (rune, error) {
	r, err := d.hex4()
	if err != nil || !utf16.IsSurrogate(r) {
		return r, err
	}
	if !strings.HasPrefix(d.data[d.pos:], `\u`) {
		return utf8.RuneError, nil
	}
	save := d.pos
	d.pos += 2
	r2, err := d.hex4()
	if err != nil {
		return 0, err
	}
	if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
		return dec, nil
	}
	d.pos = save
	return utf8.RuneError, nil
}

// hex4 reads the four hex digits of a \u escape.
func (d *jsonDecoder) hex4() (rune, error) {
	var r rune
	for i := 0; i < 4; i++ {
		if d.pos >= len(d.data) {
			return 0, d.syntax("")
		}
		c := d.data[d.pos]
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, d.syntax("in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(v)
		d.pos++
	}
	return r, nil
}

func (d *jsonDecoder) str(key string, line int) (string, error) {
	if d.peek() != '"' {
		return "", d.mismatch(strconv.Quote(key), "a string")
	}
	return d.readString()
}

func (d *jsonDecoder) boolean(key string, line int) (parse.Opt[bool], error) {
	var b bool
	switch d.peek() {
	case 't':
		b = true
		if err := d.literal("true"); err != nil {
			return parse.Opt[bool]{}, err
		}
	case 'f':
		if err := d.literal("false"); err != nil {
			return parse.Opt[bool]{}, err
		}
	default:
		return parse.Opt[bool]{}, d.mismatch(strconv.Quote(key), "true or false")
	}
	return parse.Some(b), nil
}

// number reads a number for key.
func (d *jsonDecoder) number(key string) (string, error) {
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return "", d.mismatch(strconv.Quote(key), "a number")
	}
	return d.readNumber()
}

func (d *jsonDecoder) float(key string, line int) (parse.Opt[float64], error) {
	n, err := d.number(key)
	if err != nil {
		return parse.Opt[float64]{}, err
	}
	f, err := num.ParseFloat(n)
	if err != nil {
		return parse.Opt[float64]{}, d.errorf(line, "%q: %s is out of range", key, n)
	}
	return parse.Some(f), nil
}

func (d *jsonDecoder) integer(key string, line int) (parse.Opt[int64], error) {
	n, err := d.number(key)
	if err != nil {
		return parse.Opt[int64]{}, err
	}
	i, ok := atoi(n)
	if !ok {
		if wholeDigits(n) {
			return parse.Opt[int64]{}, d.errorf(line, "%q: %s is out of range (at most %d: a count or byte total beyond it is no real plan's)", key, n, int64(math.MaxInt64))
		}
		return parse.Opt[int64]{}, d.errorf(line, "%q: expected a whole number, found %s", key, n)
	}
	return parse.Some(i), nil
}

// wholeDigits reports whether n is a whole number as JSON writes one (an
// optional minus, then digits), whatever its size.
func wholeDigits(n string) bool {
	n = strings.TrimPrefix(n, "-")
	for _, c := range []byte(n) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return n != ""
}

// extra reads key's value into an Extra map.
func (d *jsonDecoder) extra(m *map[string]any, key string) error {
	v, err := d.value()
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string]any{}
	}
	(*m)[key] = v
	return nil
}

// describe says what a JSON value is, for an error message.
func describe(v any) string {
	switch v := v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return fmt.Sprintf("the string %q", shorten(v))
	case json.Number:
		return "the number " + string(v)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// plainRun is the length of the bytes at the start of s that a string
// literal holds as they are: up to a quote, a backslash, a control
// character or a byte from 0x80. Eight bytes at a time: a byte of a word
// is one of those when the subtractions borrow into its top bit.
func plainRun(s string) int {
	const lows, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		q, b := x^'"'*lows, x^'\\'*lows
		if ((q-lows)&^q|(b-lows)&^b|(x-0x20*lows)&^x|x)&highs != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return i
}
