package study

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeText makes a study file's (or an import manifest's) bytes UTF-8,
// as the capture stores it and as redaction must see it: a UTF-8 byte
// order mark is dropped, and
// UTF-16 with a byte order mark (Windows Notepad's "Unicode") is decoded.
// Other bytes that are not UTF-8 are an error with their line and column.
func DecodeText(file string, b []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		b = b[3:]
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		if len(b)%2 != 0 {
			return nil, ErrorList{{File: file, Msg: "UTF-16 text with an odd number of bytes: the file is cut short"}}
		}
		order := binary.ByteOrder(binary.LittleEndian)
		if b[0] == 0xFE {
			order = binary.BigEndian
		}
		units := make([]uint16, 0, len(b)/2-1)
		for i := 2; i < len(b); i += 2 {
			units = append(units, order.Uint16(b[i:]))
		}
		b = []byte(string(utf16.Decode(units)))
	}
	if !utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 { // a binary file is said to be one by ParseStudy
		line, col := 1, 1
		for i := 0; i < len(b); {
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i += n
		}
		return nil, ErrorList{{File: file, Line: line, Col: col, Msg: "expected UTF-8 text (or UTF-16 with a byte order mark); save the study file as UTF-8"}}
	}
	return b, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// controlChar locates the first character YAML does not allow, which the
// YAML parser reports without a place: most often the file is binary.
func controlChar(file string, text []byte) *Error {
	line, col := 1, 1
	for _, r := range string(text) {
		switch {
		case r == '\n':
			line, col = line+1, 1
			continue
		case r == utf8.RuneError:
			return &Error{File: file, Line: line, Col: col, Msg: "not valid YAML: expected UTF-8 text, found a byte that is not (is it a binary file?)"}
		case r != '\t' && r != '\r' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0):
			return &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("not valid YAML: expected text, found the control character %U (is it a binary file?)", r)}
		}
		col++
	}
	return nil
}

func yamlSyntaxError(file string, err error) *Error {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		var line int
		fmt.Sscan(m[1], &line)
		return &Error{File: file, Line: line, Col: 1, Msg: "not valid YAML: " + m[2]}
	}
	return &Error{File: file, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
}
