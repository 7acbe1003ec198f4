package vacuum

import (
	"bytes"
	"unicode/utf8"

	"github.com/pgstudy/pgstudy/parse"
)

// A server that logs to syslog sends each message as syslog messages
// (elog.c's write_syslog): with syslog_sequence_numbers (the default) a
// message of one line is "[SEQ] line" and each line of a longer one
// "[SEQ-CHUNK] line", SEQ counting the process's messages; a line longer
// than 900 bytes is cut, at a space when it can be, into chunks of its
// own, the next starting with that space. With syslog_split_messages off
// a message is one syslog message, which rsyslog writes on one line, its
// newlines as #012. The daemon writes each with its own prefix: rsyslog's
// default file format "Dec  4 10:00:01 host postgres[123]: " (control
// characters as #ooo: a tab is #011), journalctl -o short "Dec 04
// 10:00:01 host postgres[123]: ", -o short-iso "2024-12-04T10:00:01+0000
// host ...", RFC 3339 with fractions from rsyslog's RSYSLOG_FileFormat or
// journalctl -o short-iso-precise. A server whose stderr journald reads
// (systemd, logging_collector off) has the same prefixes before lines of
// the stderr format.

// isSyslog reports whether b starts with a syslog or journald timestamp.
func isSyslog(b []byte) bool {
	_, ok := syslogTime(b)
	return ok
}

// syslogTime is the length of the timestamp b starts with, with the space
// after it.
func syslogTime(b []byte) (int, bool) {
	switch {
	case bsdStamp(b): // Dec  4 10:00:01, Dec 04 10:00:01
		n := len("Dec 04 10:00:01")
		for n < len(b) && (b[n] == '.' || b[n] >= '0' && b[n] <= '9') {
			n++ // short-precise: 10:00:01.123456
		}
		return n + 1, n < len(b) && b[n] == ' '
	case shape(b, "dddd-dd-ddTdd:dd:dd"):
		i := bytes.IndexByte(b, ' ')
		return i + 1, i > 0
	}
	return 0, false
}

// syslogFeed reads a syslog or journald file: it takes off each line's
// syslog prefix and sequence number, undoes rsyslog's escapes, and hands
// the server's lines to the stderr reader a message at a time. The lines
// of one message ("[SEQ-1]", "[SEQ-2]", ...) may have other processes'
// lines between them: each process's message is gathered on its own, and
// handed on once that process starts another, in the order the messages
// started. A message whose end is not seen (its process logged nothing
// after it) waits for the end of the file, or until maxWaiting messages
// wait behind it. The time and process ID of the syslog prefix stand for
// the server's when its own prefix has none.
type syslogFeed struct {
	lr      *logReader
	looked  map[string]bool
	queue   []*syslogMsg          // in the order they started
	open    map[string]*syslogMsg // by process: its message still gathering lines
	bytes   int                   // of the lines waiting
	free    []*syslogMsg
	scratch []byte
	numbers int8              // numbersUnknown, numbersOn or numbersOff (see continues)
	pids    map[string]string // the process IDs met, one string each (see pid)
	lastPID string            // the last of them pid returned
	mixed   bool              // warned of messages that cannot be told apart
}

// maxWaiting bounds the messages that wait for one to end.
const maxWaiting = 256

// syslogMsg is one message of a process: its lines, unescaped, and where
// each is.
type syslogMsg struct {
	pid  string
	key  string // in s.open: the process ID, or without one the sequence number
	seq  []byte
	last int // the last chunk's number
	// prefixed is the length of the "[N-1] " its first line starts with
	// when that may be the server's prefix rather than a number (see line).
	prefixed int
	bare     bool // its chunks are "[N] " (no sequence numbers)
	time     []byte
	lines    [][]byte
	ns       []int
	sent     int // the lines handed on (see drain)
	done     bool
	open     bool // s.open holds it
}

func (s *syslogFeed) line(n int, b []byte) error {
	if blank(b) {
		// Not a line the logger wrote (each has its prefix), nor part of
		// an entry: the server's lines after it go on with their entry.
		return nil
	}
	ts, pid, msg, ok := syslogSplit(b)
	if !ok {
		s.flushAll()
		s.lr.unlabelled(n, b)
		return nil
	}
	text := msg
	seq, chunk, msg := syslogSeq(msg)
	bare := seq != nil && chunk == 0 // "[N] ": a line alone, or chunk N without sequence numbers
	s.numbering(n, b, seq, chunk, bare, msg)
	prefixed := 0
	if seq != nil && !bare && chunk == 1 && s.numbers == numbersOff {
		// Without sequence numbers, "[N-1] " is the server's own prefix
		// (a log_line_prefix of "[%l-1] "), kept in the line, unless an
		// "[N-2] " of its process comes next (numbers turned on).
		prefixed, msg = len(text)-len(msg), text
	}
	key := pid
	if len(pid) == 0 && seq != nil && !bare {
		// No process ID in the tag: a message's chunks are told from
		// another process's by its sequence number.
		key = append(append(s.scratch[:0], 0), seq...)
		s.scratch = key
	}
	open := s.open[string(key)]
	if len(pid) == 0 && s.outOfOrder(open, seq, chunk, bare) && !s.mixed {
		// A chunk out of its order: two processes' messages of the same
		// number at once, which with no process ID cannot be told apart.
		s.mixed = true
		s.lr.sink.warn(n, string(b), "syslog lines without a process ID in their tag (\"postgres:\", not \"postgres[123]:\"), and a message's line out of its order: two processes' messages logged at once cannot be told apart, and the entries of this log may hold each other's figures")
	}
	if open != nil && s.continues(open, seq, chunk, bare, msg) {
		s.bytes += open.add(n, msg, len(msg) > 0 && msg[0] == ' ') // a space: a long line the server cut there
		s.drain()
		return nil
	}
	m := s.newMsg()
	if open != nil {
		open.done, open.open = true, false
		m.pid = open.pid
	} else {
		m.pid = s.pid(pid)
	}
	m.key = m.pid
	if len(pid) == 0 && len(key) > 0 {
		m.key = string(key)
	}
	m.seq, m.time = append(m.seq[:0], seq...), append(m.time[:0], ts...)
	s.bytes += m.add(n, msg, false)
	m.prefixed = prefixed
	// "[SEQ] line" or no number: one line; but "[1] line", without
	// sequence numbers, may be a message's first chunk.
	m.bare = bare && s.numbers != numbersOn && number(seq) == 1
	m.done = chunk == 0 && !m.bare
	m.last = chunk
	if m.bare {
		m.last = 1
	}
	s.queue = append(s.queue, m)
	switch {
	case !m.done:
		if s.open == nil {
			s.open = map[string]*syslogMsg{}
		}
		s.open[m.key], m.open = m, true
	case open != nil:
		delete(s.open, m.key)
	}
	s.drain()
	return nil
}

// What the server's syslog_sequence_numbers is, as the lines show: with
// it on, a message of several lines is "[SEQ-1] ", "[SEQ-2] ", ..., one
// line alone "[SEQ] "; with it off, a message of several lines is
// "[1] ", "[2] ", ..., one line alone has no number. A "[N-2]" or later
// chunk says on (a "[N-1] " may be the server's own log_line_prefix); a
// "[N] " continuing the "[N-1] " of its process with a line only a
// message's second line can be (a tab, a field) says off (numbering).
const (
	numbersUnknown int8 = iota
	numbersOn
	numbersOff
)

// numbering follows what line n, b, shows of syslog_sequence_numbers: a
// chunk after a message's first ("[N-2] ") says on; a "[N] " that only a
// chunk can be, after lines numbered "[SEQ-CHUNK] ", says it was turned
// off: the entry the line continues, whose first line was read as a line
// alone, may be cut short, which a warning says.
func (s *syslogFeed) numbering(n int, b, seq []byte, chunk int, bare bool, msg []byte) {
	switch {
	case seq != nil && !bare && chunk >= 2 && s.numbers != numbersOn:
		s.numbersOn()
	case bare && s.numbers == numbersOn && number(seq) >= 2 && continued(msg):
		s.numbers = numbersOff
		s.lr.sink.warn(n, string(b), "a chunk numbered \"[N] \" alone after lines numbered \"[SEQ-CHUNK] \": syslog_sequence_numbers was turned off within the log, and the entry this line continues may be cut short")
	}
}

// numbersOn records that the server numbers its messages: a "[1] " line
// waiting as a message's first chunk was a line alone.
func (s *syslogFeed) numbersOn() {
	s.numbers = numbersOn
	for k, m := range s.open {
		if m.bare {
			m.done, m.open = true, false
			delete(s.open, k)
		}
	}
}

// outOfOrder reports whether "[seq-chunk] " (bare: "[seq] " without
// sequence numbers, seq the chunk) is not the next chunk of the open
// message of its key, nor a first one.
func (s *syslogFeed) outOfOrder(open *syslogMsg, seq []byte, chunk int, bare bool) bool {
	if bare {
		if s.numbers != numbersOff {
			return false
		}
		chunk = number(seq)
	}
	return chunk > 1 && (open == nil || chunk != open.last+1)
}

// continues reports whether "[seq-chunk] text" (or, bare, "[seq] text")
// is the next chunk of the open message of its process.
func (s *syslogFeed) continues(open *syslogMsg, seq []byte, chunk int, bare bool, text []byte) bool {
	if !bare {
		if chunk <= 1 || !bytes.Equal(open.seq, seq) {
			return false
		}
		if open.prefixed > 0 && open.sent == 0 && len(open.lines) == 1 {
			// Its "[N-1] " was a number after all.
			l := open.lines[0]
			open.lines[0] = l[:copy(l, l[open.prefixed:])]
			s.bytes -= open.prefixed
		}
		open.prefixed, open.last = 0, chunk
		return true
	}
	k := number(seq)
	if s.numbers == numbersOn || !open.bare || k != open.last+1 {
		return false
	}
	if s.numbers == numbersUnknown {
		if !continued(text) {
			return false
		}
		s.numbers = numbersOff
	}
	open.last = k
	return true
}

// continued reports whether text is a line only a message's chunk after
// its first can start with: a tab (escaped as #011 or not), the space
// of a long line cut there, or one of the fields the server writes on
// lines of their own, after the line's prefix.
func continued(text []byte) bool {
	if len(text) > 0 && (text[0] == '\t' || text[0] == ' ') || bytes.HasPrefix(text, []byte("#011")) {
		return true
	}
	// A field after the line's prefix (log_line_prefix), before any
	// "LOG:  " or other severity a message's first line has: the label
	// before the line's first ":  " (a label has none in it), found with
	// one search of the line rather than one a label.
	c := fieldColon(text)
	if c < 0 {
		return false
	}
	for _, f := range continuedFields {
		if i := c - len(f); i >= 0 && string(text[i:c]) == f && (i == 0 || text[i-1] == ' ') {
			return true
		}
	}
	return false
}

// continuedFields are the labels of the fields continued looks for.
var continuedFields = []string{"DETAIL", "HINT", "QUERY", "CONTEXT", "LOCATION", "STATEMENT"}

// number is the value of the digits b, at most 1<<20.
func number(b []byte) int {
	n := 0
	for _, d := range b {
		n = min(n*10+int(d-'0'), 1<<20)
	}
	return n
}

// pid is b as a string, the same string for every line of a process
// while fewer than maxPIDs processes are met: a string a line was most
// of the allocations of reading a syslog file.
func (s *syslogFeed) pid(b []byte) string {
	if s.lastPID == string(b) {
		return s.lastPID
	}
	if p, ok := s.pids[string(b)]; ok {
		s.lastPID = p
		return p
	}
	if s.pids == nil || len(s.pids) >= maxPIDs {
		s.pids = make(map[string]string)
	}
	p := string(b)
	s.pids[p], s.lastPID = p, p
	return p
}

// maxPIDs bounds the process IDs pid remembers: a log of a busy server
// names a new process with each connection.
const maxPIDs = 4096

// add adds line n to the message, or to its last line (join), unescaped;
// it returns the bytes added. The lines' room is reused from message to
// message.
func (m *syslogMsg) add(n int, b []byte, join bool) int {
	k := len(m.lines)
	if join && k > m.sent { // a line handed on is not joined (see mayEnd)
		before := len(m.lines[k-1])
		m.lines[k-1] = appendUnescaped(m.lines[k-1], b)
		return len(m.lines[k-1]) - before
	}
	var room []byte
	if k < cap(m.lines) {
		room = m.lines[:k+1][k][:0]
	}
	m.lines, m.ns = append(m.lines, appendUnescaped(room, b)), append(m.ns, n)
	return len(m.lines[k])
}

func (s *syslogFeed) newMsg() *syslogMsg {
	if k := len(s.free); k > 0 {
		m := s.free[k-1]
		s.free = s.free[:k-1]
		m.lines, m.ns, m.sent = m.lines[:0], m.ns[:0], 0
		return m
	}
	return &syslogMsg{}
}

// drain hands on the messages at the head of the queue that have ended,
// and the head whatever it is while too many wait. The lines of the head
// message that has not ended are handed on as they come, but for its last,
// which the next chunk may continue, unless it may end a record (see
// mayEnd); when the stderr reader finds it the last of a whole record,
// the message has ended, and those behind it go on: an autovacuum worker
// logs nothing after its last entry.
func (s *syslogFeed) drain() {
	for len(s.queue) > 0 {
		m := s.queue[0]
		if !m.done && len(s.queue) <= maxWaiting && s.bytes <= parse.MaxLine {
			upTo := len(m.lines)
			if upTo > 0 && !mayEnd(m.lines[upTo-1]) {
				upTo--
			}
			if upTo > m.sent {
				s.emitLines(m, upTo)
			}
			// The reader's state is that of m's last line when it was
			// handed one, as nothing behind m was.
			if cur := s.lr.cur; m.sent == 0 || m.sent < len(m.lines) || cur == nil || cur.kind != partDone {
				return
			}
		}
		s.emit(m)
		s.queue = s.queue[1:]
	}
}

// mayEnd reports whether a line may be the last of a whole record's
// summary (see finishWhole): such lines are short, and the server cuts
// only lines longer than 900 bytes, so no chunk continues it.
func mayEnd(l []byte) bool {
	return bytes.HasPrefix(l, []byte("\tsystem usage: ")) || bytes.HasPrefix(l, []byte("\tWAL usage: "))
}

func (s *syslogFeed) flushAll() {
	for _, m := range s.queue {
		s.emit(m)
	}
	s.queue = s.queue[:0]
}

// emit hands the rest of a message's lines to the stderr reader.
func (s *syslogFeed) emit(m *syslogMsg) {
	if m.open {
		delete(s.open, m.key)
		m.open = false
	}
	s.emitLines(m, len(m.lines))
	s.free = append(s.free, m)
}

// emitLines hands a message's lines up to upTo, from the first not handed
// on, to the stderr reader.
func (s *syslogFeed) emitLines(m *syslogMsg, upTo int) {
	s.lr.defTime, s.lr.defPID = m.time, m.pid
	for i := m.sent; i < upTo; i++ {
		l := m.lines[i]
		s.bytes -= len(l)
		// With syslog_split_messages off a message is one syslog
		// message, its newlines escaped by rsyslog as #012.
		for {
			j := bytes.IndexByte(l, '\n')
			if j < 0 {
				break
			}
			s.lr.line(m.ns[i], l[:j], s.looked)
			l = l[j+1:]
		}
		s.lr.line(m.ns[i], l, s.looked)
	}
	m.sent = upTo
	s.lr.defTime, s.lr.defPID = nil, ""
}

func (s *syslogFeed) end() error {
	s.flushAll()
	return nil
}

// syslogSplit takes a line apart: its timestamp, the process ID of its tag
// ("postgres[123]: "), and the message. ok is false for a line without a
// syslog prefix.
func syslogSplit(b []byte) (ts, pid, msg []byte, ok bool) {
	n, ok := syslogTime(b)
	if !ok {
		return nil, nil, nil, false
	}
	ts = bytes.TrimSpace(b[:n])
	rest := b[n:]
	sp := bytes.IndexByte(rest, ' ') // after the host
	if sp < 0 {
		return nil, nil, nil, false
	}
	rest = rest[sp+1:]
	colon := indexPair(rest, ':', ' ')
	if colon < 0 {
		return nil, nil, nil, false
	}
	tag := rest[:colon]
	if i := bytes.IndexByte(tag, '['); i >= 0 && tag[len(tag)-1] == ']' && isDigits(tag[i+1:len(tag)-1]) {
		pid = tag[i+1 : len(tag)-1]
	}
	return ts, pid, rest[colon+2:], true
}

// syslogSeq takes the sequence number off a message: "[SEQ] " or
// "[SEQ-CHUNK] " (chunk 0 for none, and for "[SEQ] ", a message of one
// line, which ends there).
func syslogSeq(b []byte) (seq []byte, chunk int, msg []byte) {
	if len(b) < 4 || b[0] != '[' {
		return nil, 0, b
	}
	end := indexPair(b, ']', ' ')
	if end < 0 {
		return nil, 0, b
	}
	num := b[1:end]
	s, c, dash := bytes.Cut(num, []byte{'-'})
	if !isDigits(s) || dash && !isDigits(c) {
		return nil, 0, b
	}
	if dash {
		chunk = number(c)
	}
	return s, chunk, b[end+2:]
}

// appendUnescaped appends b with rsyslog's escapes of control characters
// ("#011" for a tab: '#' and three octal digits below 040) undone.
func appendUnescaped(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, '#')
		if i < 0 || i+3 >= len(b) {
			return append(dst, b...)
		}
		c := b[i+1 : i+4]
		if c[0] != '0' || c[1] < '0' || c[1] > '3' || c[2] < '0' || c[2] > '7' {
			dst, b = append(dst, b[:i+1]...), b[i+1:] // a '#' of the text
			continue
		}
		dst = append(append(dst, b[:i]...), (c[1]-'0')*8+c[2]-'0')
		b = b[i+4:]
	}
}

// blank reports whether b is white space alone, as bytes.TrimSpace has
// it, without its look at both ends of every line: a line of the log
// starts with its time.
func blank(b []byte) bool {
	if len(b) > 0 && b[0] > ' ' && b[0] < utf8.RuneSelf {
		return false
	}
	return len(bytes.TrimSpace(b)) == 0
}

// indexPair is the index of the first a followed by c in b, or -1: what
// bytes.Index finds of a needle of two bytes, without its set-up, which
// cost more than the search on a line's short prefix.
func indexPair(b []byte, a, c byte) int {
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], a)
		if i < 0 {
			return -1
		}
		if j := off + i; j+1 < len(b) && b[j+1] == c {
			return j
		}
		off += i + 1
	}
}

// fieldColon is the index of the first ":  " in b (a message's label
// ends so), or -1.
func fieldColon(b []byte) int {
	for off := 0; ; {
		i := indexPair(b[off:], ':', ' ')
		if i < 0 {
			return -1
		}
		if j := off + i; j+2 < len(b) && b[j+2] == ' ' {
			return j
		}
		off += i + 1
	}
}

// bsdStamp is shape(b, "aaa _d dd:dd:dd"), the time every line of a
// syslog file starts with, tested byte by byte without shape's look at
// the pattern (a twentieth of the syslog reader's instructions).
func bsdStamp(b []byte) bool {
	return len(b) >= 15 && isLetter(b[0]) && isLetter(b[1]) && isLetter(b[2]) && b[3] == ' ' &&
		(b[4] == ' ' || isDigit(b[4])) && isDigit(b[5]) && b[6] == ' ' && isDigit(b[7]) && isDigit(b[8]) &&
		b[9] == ':' && isDigit(b[10]) && isDigit(b[11]) && b[12] == ':' && isDigit(b[13]) && isDigit(b[14])
}

// isDigit and isLetter test a byte of a shape (see shape).
func isDigit(c byte) bool { return c-'0' <= 9 }

func isLetter(c byte) bool { return (c|0x20)-'a' < 26 }
