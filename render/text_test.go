package render

import "testing"

// Text from a capture lands in Markdown, terminals and SVG; these are the
// escapes that keep it from changing what it lands in.
func TestMarkdownText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"pg17", "pg17"},
		{"a|b", `a\|b`},
		{"line\nbreak\r\ttab", "line break  tab"},
		{"# heading", `\# heading`},
		{"> quote", `\> quote`},
		{"not # a heading", "not # a heading"},
		{"<script>alert(1)</script>", `\<script>alert(1)\</script>`},
		{"[x](javascript:alert(1))", `\[x\](javascript:alert(1))`},
		{"```fence```", "\\`\\`\\`fence\\`\\`\\`"},
		{`back\slash`, `back\\slash`},
		{"*bold* _em_", `\*bold\* \_em\_`},
		{"r_await", "r_await"},
		{"1.21 ~", "1.21 ~"},
		{"~~strike~~", `\~\~strike\~\~`},
		{"esc\x1b[2Jbell\x07", "esc\ufffd\\[2Jbell\ufffd"},
		{"bad \xff utf-8", "bad \ufffd utf-8"},
	} {
		if got := markdownText(tc.in); got != tc.want {
			t.Errorf("markdownText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPlainText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"pg17 | <b>", "pg17 | <b>"},
		{"two\nlines\r", "two lines "},
		{"esc\x1b]0;title\x07 \x00", "esc\ufffd]0;title\ufffd \ufffd"},
		{"bad \xff utf-8", "bad \ufffd utf-8"},
		{"é 日本", "é 日本"},
	} {
		if got := PlainText(tc.in); got != tc.want {
			t.Errorf("PlainText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSafeName(t *testing.T) {
	long := "a-very-long-test-name-that-goes-on-and-on-and-on-past-sixty-bytes-of-it"
	for _, tc := range []struct{ in, want string }{
		{"seqscan", "seqscan"},
		{"../../etc/passwd", "-..-etc-passwd"},
		{"a b|c", "a-b-c"},
		{long, ""}, // checked below: its start and a hash
	} {
		got := safeName(tc.in)
		if tc.in == long {
			if len(got) != maxNamePart || got[:52] != long[:51]+"-" {
				t.Errorf("safeName(long) = %q", got)
			}
			if safeName(long+"x") == got {
				t.Error("two long names that differ at the end share a file name")
			}
			continue
		}
		if got != tc.want {
			t.Errorf("safeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !fileNameOK("times-" + got) {
			t.Errorf("times-%s is not a file name", got)
		}
	}
}
