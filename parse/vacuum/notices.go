package vacuum

import (
	"bytes"
	"encoding/json"
	"io"
	"iter"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/batch"
)

// Notices reads the messages of VACUUM (VERBOSE) as notices, as a
// driver received them (see ReadNotices), and returns the records Parse
// returns for the same run printed by psql. A record's Line, and a
// warning's, is the 1-based position of its notice in notices. Notices
// without any VACUUM VERBOSE message are an error.
func Notices(notices []Notice, source string) ([]Record, []parse.Warning, error) {
	if len(notices) == 0 {
		return nil, nil, parse.Errorf(source, 0, "no notices; expected the messages of VACUUM (VERBOSE)")
	}
	return collectAll(func(out *output) error {
		i := 0
		nr := newNoticeReader(source, out, func() (int64, int64) { return int64(i), int64(len(notices)) })
		for i = range notices {
			nr.notice(i+1, &notices[i])
		}
		return nr.finish(len(notices))
	})
}

// NoticesSeq reads notices as JSON lines, as ReadNotices does, and
// yields the records Notices returns for them, each as soon as no notice
// to come can add to it, as ParseSeq does psql's output (whose doc says
// what comes when): its memory is that of the longest line and of the
// records held back, whatever the number of notices. A record's Line,
// and a warning's, is its notice's position among the notices, as
// Notices gives it (the line's number when no line is blank). An error
// (a line that is not a notice, names its line) ends the sequence as its
// last pair, after the records read before it.
func NoticesSeq(r io.Reader, source string, warn func(parse.Warning)) iter.Seq2[Record, error] {
	return seqOf(func(out *output) error { return readNotices(r, source, out) }, warn)
}

// readNotices reads notices as JSON lines, handing their records and
// warnings to out. The notices' text is read in place (see transient):
// the stream copies what it keeps.
func readNotices(r io.Reader, source string, out *output) error {
	nr := newNoticeReader(source, out, nil)
	var sc noticeScanner
	ls := parse.NewLines(r, source)
	n := 0
	for ls.Next() && !out.stopped {
		nt, err := sc.read(ls.Bytes(), source, ls.Line(), transient)
		if err != nil {
			return err
		}
		if nt != nil {
			n++
			nr.notice(n, nt)
		}
	}
	if out.stopped {
		return nil
	}
	if err := ls.Err(); err != nil {
		return err
	}
	if n == 0 {
		return parse.Errorf(source, 0, "empty input; expected notices as JSON lines")
	}
	return nr.finish(n)
}

// noticeReader reads notices one at a time into a stream, handing out
// the records no notice to come can add to.
type noticeReader struct {
	source string
	sink   *collector
	st     *stream
	// The first warning, which notices without a record name.
	first parse.Warning
}

func newNoticeReader(source string, out *output, progress func() (done, total int64)) *noticeReader {
	nr := &noticeReader{source: source}
	warn := out.warn
	out.warn = func(w parse.Warning) {
		if nr.first.Line == 0 {
			nr.first = w
		}
		warn(w)
	}
	nr.sink = newCollector(source, out, progress)
	nr.st = newStream(nr.sink, false)
	return nr
}

// notice reads notice n: its message and its detail, each a part of the
// stream, their further lines continuation lines.
func (nr *noticeReader) notice(n int, nt *Notice) {
	sev := nt.Severity
	if sev == "" {
		sev = "INFO"
	}
	nr.part(sev, nt.Message, n)
	if nt.Detail != "" {
		nr.part("DETAIL", nt.Detail, n)
	}
	nr.st.end()
	if len(nr.sink.recs) > 0 {
		nr.sink.handOutHeld(nr)
	}
}

// part reads one field of notice n as a message part labelled label.
func (nr *noticeReader) part(label, text string, n int) {
	st := nr.st
	first, rest, more := strings.Cut(text, "\n")
	st.part(label, first, first, n)
	for more {
		var l string
		l, rest, more = strings.Cut(rest, "\n")
		if !st.cont(l, n) && st.active() {
			nr.sink.warn(n, l, "unrecognized line in "+st.what())
		}
	}
}

// finish ends reading count notices: an error for notices in another
// language or without a record, else the records still held.
func (nr *noticeReader) finish(count int) error {
	sink := nr.sink
	if err := sink.foreignError(); err != nil {
		return err
	}
	if sink.next() == 0 {
		if w := nr.first; w.Line > 0 {
			return parse.Errorf(nr.source, w.Line, "expected the messages of VACUUM (VERBOSE) (vacuuming \"table\"), found %s", parse.Quote(w.Text))
		}
		return parse.Errorf(nr.source, 0, "no VACUUM (VERBOSE) message (vacuuming \"table\") among %d notices; was VERBOSE given?", count)
	}
	sink.handOut(sink.next())
	return nil
}

// firstHeld is the first record the notices still name.
func (nr *noticeReader) firstHeld() int { return nr.st.holds(nr.sink.next(), true) }

// letGo makes the stream forget record i.
func (nr *noticeReader) letGo(i int) { nr.st.forget(i) }

// ReadNotices reads notices as JSON Lines, one object a line with the fields
// of Notice ({"severity":"INFO","code":"00000","message":...}); other
// fields are ignored and blank lines skipped. A line that is not such an
// object is an error, and so is input without any notice.
func ReadNotices(r io.Reader, source string) ([]Notice, error) {
	size := parse.Size(r)
	ls := parse.NewLines(r, source)
	var sc noticeScanner
	text := noticeText{batch.NewText(noticeChunk)}
	var out batch.Rows[Notice]
	for ls.Next() {
		nt, err := sc.read(ls.Bytes(), source, ls.Line(), transient)
		if err != nil {
			return nil, err
		}
		if nt == nil {
			continue
		}
		out.Add(text.own(nt))
		if out.Len() == expectNotices && size > 0 {
			// Room for the notices of the rest of an input of known size,
			// from the length of those so far: the list grown in one step
			// and handed out as it is, not by a quarter at a time.
			off := ls.Offset()
			out.Expect(min(size-off, maxExpect), int(off/expectNotices))
		}
	}
	if err := ls.Err(); err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return nil, parse.Errorf(source, 0, "empty input; expected notices as JSON lines")
	}
	return out.All(), nil
}

// expectNotices is how many notices ReadNotices reads before it sizes
// its list from their length: those of several runs (a run's are a few
// dozen, of every length a VACUUM (VERBOSE) prints), and no more than
// batch.Rows moves into the room. On the benchmark's input the first 64
// gave room for 1.4 times the notices, the first 256 for 1.1 times.
const expectNotices = 256

// maxExpect bounds the bytes ReadNotices makes room for at once, so that
// a file that says it is huge (a sparse file) costs no memory before its
// notices are read: beyond it, the list grows a chunk at a time.
const maxExpect = 64 << 20

// noticeText holds the text of the notices ReadNotices returns, in
// chunks (batch.Text) of a few hundred notices: a string a field was a
// third of reading them. A notice keeps its chunk in memory, as
// ReadNotices' notices are kept together.
type noticeText struct{ batch.Text }

// noticeChunk is the size of a chunk: a few hundred notices.
const noticeChunk = 64 << 10

// own is nt with its text copied out of the line it was read in (see
// transient): a severity and a code as the few constants they are, the
// other fields into the chunk.
func (t *noticeText) own(nt *Notice) Notice {
	out := *nt
	for _, f := range [...]*string{&out.Severity, &out.Code, &out.Message, &out.Detail, &out.Hint, &out.Where} {
		if k, ok := knownNoticeText(*f); ok {
			*f = k
			continue
		}
		*f = batch.String(&t.Text, *f)
	}
	return out
}

// knownNoticeText is s as a constant when it is one of the severities
// and codes a VACUUM (VERBOSE) sends, or empty; false for other text.
func knownNoticeText(s string) (string, bool) {
	switch s {
	case "":
		return "", true
	case "INFO":
		return "INFO", true
	case "00000":
		return "00000", true
	case "WARNING":
		return "WARNING", true
	case "01000":
		return "01000", true
	case "NOTICE":
		return "NOTICE", true
	}
	return s, false
}

// noticeScanner reads a notice a line, with scanFlat or, for a line it
// does not read, encoding/json.
type noticeScanner struct {
	nt      Notice
	scratch []byte
	text    func([]byte) string // a value's string: a copy, or transient
}

// read reads line n; nil for a blank line. The notice is valid until the
// next read; its strings are made by text.
func (sc *noticeScanner) read(line []byte, source string, n int, text func([]byte) string) (*Notice, error) {
	b := bytes.TrimSpace(line)
	if len(b) == 0 {
		return nil, nil
	}
	if b[0] != '{' {
		return nil, parse.Errorf(source, n, "expected a JSON object (a notice), found %s", parse.Quote(string(b)))
	}
	sc.nt, sc.scratch, sc.text = Notice{}, sc.scratch[:0], text
	if !scanFlat(b, &sc.scratch, sc.set) {
		sc.nt = Notice{}
		if err := json.Unmarshal(b, &sc.nt); err != nil {
			return nil, parse.Errorf(source, n, "notice: %v", err)
		}
	}
	if sc.nt.Message == "" && sc.nt.Severity == "" {
		return nil, parse.Errorf(source, n, "expected a notice with a severity and a message, found %s", parse.Quote(string(b)))
	}
	return &sc.nt, nil
}

// set sets the field of key; false for a value encoding/json would read
// otherwise (anything but a string for a field, a key of another case).
func (sc *noticeScanner) set(key, val []byte, str bool) bool {
	var p *string
	switch string(key) {
	case "severity":
		p = &sc.nt.Severity
	case "code":
		p = &sc.nt.Code
	case "message":
		p = &sc.nt.Message
	case "detail":
		p = &sc.nt.Detail
	case "hint":
		p = &sc.nt.Hint
	case "where":
		p = &sc.nt.Where
	default:
		return !foldsTo(key, "severity", "code", "message", "detail", "hint", "where")
	}
	*p = sc.text(val)
	return str
}
