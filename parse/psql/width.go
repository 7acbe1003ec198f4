package psql

import (
	"unicode"
	"unicode/utf8"
)

// Display widths: psql lines up its tables by terminal columns, not by
// bytes.

// runeWidth is the number of terminal columns psql gives a character:
// 0 for combining marks, 2 for East Asian wide ones, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && (r <= 0x115f ||
		r >= 0x2e80 && r <= 0xa4cf && r != 0x303f ||
		r >= 0xac00 && r <= 0xd7a3 ||
		r >= 0xf900 && r <= 0xfaff ||
		r >= 0xfe30 && r <= 0xfe6f ||
		r >= 0xff00 && r <= 0xff60 ||
		r >= 0xffe0 && r <= 0xffe6 ||
		r >= 0x1f300 && r <= 0x1f64f ||
		r >= 0x1f900 && r <= 0x1f9ff ||
		r >= 0x20000 && r <= 0x3fffd):
		return 2
	}
	return 1
}

// isASCII reports whether s is all ASCII, where a byte is a column.
func isASCII(s string) bool {
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// width is the display width of s.
func width(s string) int {
	if isASCII(s) {
		return len(s)
	}
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// offsets maps display columns of s to byte offsets: want must be
// increasing; it returns for each the byte offset where that column
// starts, len(s) past the end, or -1 when a wide character straddles it.
func offsets(s string, want []int, out []int) []int {
	out = out[:0]
	if isASCII(s) {
		for _, c := range want {
			out = append(out, min(c, len(s)))
		}
		return out
	}
	col, k := 0, 0
	for i, r := range s {
		for k < len(want) && want[k] <= col {
			if want[k] == col {
				out = append(out, i)
			} else {
				out = append(out, -1)
			}
			k++
		}
		if k == len(want) {
			return out
		}
		col += runeWidth(r)
	}
	for ; k < len(want); k++ {
		if want[k] == col {
			out = append(out, len(s))
		} else if want[k] > col {
			out = append(out, len(s))
		} else {
			out = append(out, -1)
		}
	}
	return out
}
