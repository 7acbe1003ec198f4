package parse

import (
	"fmt"
)

// SyntaxError is input that is not what a parser reads.
type SyntaxError struct {
	Source string
	Line   int // 1-based; 0 when the problem is the input as a whole
	Msg    string
}

func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Source, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
}

// Warning is a line a parser read but did not understand.
//
// Text is bounded: the line as read when it is at most MaxExcerpt (1 KiB)
// long, else its first KiB and a marker saying how many bytes the line had
// (see Excerpt), so that a warning about a line of many megabytes costs a
// KiB, not the line. The parsers that read by the line make Text with
// Excerpt.
type Warning struct {
	Source string `json:"source"`
	Line   int    `json:"line"`
	Text   string `json:"text"` // the line, as read, or an Excerpt of it
	Msg    string `json:"msg"`  // why it was not understood
}

func (w Warning) String() string {
	return fmt.Sprintf("%s:%d: %s: %q", w.Source, w.Line, w.Msg, w.Text)
}

// Errorf is a *SyntaxError at source:line, its message formatted as by
// fmt.Sprintf.
func Errorf(source string, line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Source: source, Line: line, Msg: fmt.Sprintf(format, args...)}
}
