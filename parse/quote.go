package parse

import (
	"strconv"
	"strings"
)

// Quote quotes a line for an error or a warning, cut at a character
// boundary to about 80 bytes with "...", so that a message about a long
// line stays readable.
func Quote(s string) string {
	const limit = 80
	if len(s) > limit {
		return strconv.Quote(strings.TrimSuffix(clip(s, limit), "...")) + "..."
	}
	return strconv.Quote(s)
}

// clip shortens s to about n bytes, at a character boundary, with "...".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:cutUTF8(s, n)] + "..."
}
