package collect

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeText makes a study file's bytes UTF-8, as the capture stores it
// and as redaction must see it: a UTF-8 byte order mark is dropped, and
// UTF-16 with a byte order mark (Windows Notepad's "Unicode") is decoded.
// Other bytes that are not UTF-8 are an error with their line and column.
func decodeText(file string, b []byte) ([]byte, error) {
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
