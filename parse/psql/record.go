package psql

import "github.com/pgstudy/pgstudy/parse"

// The records ParseSeq hands out: each of what Output lists (a statement,
// a meta-command, a message tied to no statement, a marker) on its own,
// with its kind, once no line to come can add to it.

// Kind is what a Record holds.
type Kind string

const (
	KindStatement Kind = "statement" // a statement with its echo, results, messages and Time: line
	KindMeta      Kind = "meta"      // a meta-command's answer or output, or comments alone
	KindMessage   Kind = "message"   // a message tied to no statement
	KindMarker    Kind = "marker"    // a line the collector had psql print
)

// Record is one record of psql's output: Kind says which of its fields
// is set, the others are nil. As JSON (a line of pgstudy parse psql
// --format jsonl) it is {"kind":"statement","statement":{...}}, the
// object under the kind's own name being what Output lists under
// "statements", "meta", "messages" or "markers", so that a query reads
// record.statement.time_ms where record.kind = 'statement'.
type Record struct {
	Kind      Kind       `json:"kind"`
	Statement *Statement `json:"statement,omitempty"`
	Meta      *Meta      `json:"meta,omitempty"`
	Message   *Message   `json:"message,omitempty"`
	Marker    *Marker    `json:"marker,omitempty"`
}

// Line is the record's first line.
func (r *Record) Line() int {
	switch {
	case r.Statement != nil:
		return r.Statement.Line
	case r.Meta != nil:
		return r.Meta.Line
	case r.Message != nil:
		return r.Message.Line
	case r.Marker != nil:
		return r.Marker.Line
	}
	return 0
}

// printed reports whether the record is something psql prints for a
// statement or a meta-command: a script alone (SQL, comments,
// meta-commands, as psql -a would echo them) has none.
func (r *Record) printed() bool {
	switch {
	case r.Statement != nil:
		st := r.Statement
		return len(st.Results) > 0 || len(st.Messages) > 0 || st.TimeMs != nil
	case r.Meta != nil:
		return len(r.Meta.Response) > 0 || len(r.Meta.Messages) > 0
	}
	return r.Message != nil
}

// add puts a record in its list of o.
func (o *Output) add(r Record) {
	switch {
	case r.Statement != nil:
		o.Statements = append(o.Statements, *r.Statement)
	case r.Meta != nil:
		o.Meta = append(o.Meta, *r.Meta)
	case r.Message != nil:
		o.Messages = append(o.Messages, *r.Message)
	case r.Marker != nil:
		o.Markers = append(o.Markers, *r.Marker)
	}
}

// printed reports whether any of o's records is printed.
func (o *Output) printed() bool {
	for k := range o.Statements {
		if r := (Record{Statement: &o.Statements[k]}); r.printed() {
			return true
		}
	}
	for k := range o.Meta {
		if r := (Record{Meta: &o.Meta[k]}); r.printed() {
			return true
		}
	}
	return len(o.Messages) > 0
}

// queued is a record made and not yet handed out, with the statement it
// is (for a statement).
type queued struct {
	rec Record
	st  *openStatement
	// The input's offset and line when it was made, from which
	// heldTooLong counts what it holds once the records before it are
	// handed out.
	at   int64
	line int
}

// enqueue adds a record made now to the queue.
func (p *parser) enqueue(q queued) {
	q.at, q.line = p.w.ls.Offset(), p.w.ls.Line()
	p.queue = append(p.queue, q)
}

func (p *parser) addStmt(st *openStatement) {
	p.enqueue(queued{rec: Record{Kind: KindStatement, Statement: &st.Statement}, st: st})
}

func (p *parser) addMeta(m *Meta) {
	p.enqueue(queued{rec: Record{Kind: KindMeta, Meta: m}})
}

func (p *parser) addMessage(m *Message) {
	p.enqueue(queued{rec: Record{Kind: KindMessage, Message: m}})
}

func (p *parser) addMarker(m *Marker) {
	p.enqueue(queued{rec: Record{Kind: KindMarker, Marker: m}})
}

// complete reports whether no line to come can change q: a statement is
// complete once another took its place (or its Time: line closed it), no
// message being read is its, and no statement of its echo is left to hand
// out (flushBlock gives their SQL to it); a meta-command once it takes no
// more lines or messages. A message and a marker are complete when made.
func (p *parser) complete(q *queued) bool {
	switch {
	case q.st != nil:
		st := q.st
		return st != p.cur && (p.msg == nil || p.msg.stmt != st) &&
			(p.block == nil || p.block.owner != st || p.block.next == len(p.block.parts))
	case q.rec.Meta != nil:
		return q.rec.Meta != p.meta && (p.msg == nil || p.msg.meta != q.rec.Meta)
	}
	return true
}

// printedHeld reports whether a record made and not yet handed out holds
// something psql printed (a statement without echo, with its table, waits
// for the next to complete it): the input is psql's output, whatever
// lines not understood follow (found by an outside tester).
func (p *parser) printedHeld() bool {
	for k := range p.queue {
		if p.queue[k].rec.printed() {
			return true
		}
	}
	return false
}

// handOut hands out the complete records at the head of the queue, in the
// order they were made: the order of their first lines.
func (p *parser) handOut() {
	n := 0
	for n < len(p.queue) && !p.stopped && p.complete(&p.queue[n]) {
		p.seal()
		p.stopped = !p.emit(p.queue[n].rec)
		n++
	}
	if n > 0 {
		k := copy(p.queue, p.queue[n:])
		clear(p.queue[k:])
		p.queue = p.queue[:k]
	}
	switch {
	case len(p.queue) == 0:
		p.outAt, p.outLine = p.w.ls.Offset(), p.w.ls.Line()
	case n > 0:
		// A statement waits for the next to complete it (no \timing):
		// what is held is counted from the oldest record still held,
		// not from the last time none was.
		p.outAt, p.outLine = p.queue[0].at, p.queue[0].line
	}
}

// maxHeldLines bounds the lines of a statement's output held whole, as
// parse.MaxText bounds their bytes: a line costs some 100 bytes of
// memory besides its own (a table's row, its cells), so that 4 Mi lines
// of a few bytes take about 500 MiB, and no bound on the bytes alone
// kept a stream of short lines from taking gigabytes.
const maxHeldLines = 4 << 20

// heldTooLong is the refusal of a statement whose output, held whole as
// its record is, passes parse.MaxText (lines of junk after a statement
// were read as its result, in memory some 57 times their size, with no
// bound), or nil.
func (p *parser) heldTooLong() error {
	line := p.w.ls.Line()
	if e := p.echo; e != nil && (e.size > parse.MaxText || e.last-e.first >= maxHeldLines) {
		// An echo is held whole too, as the statement's SQL (found by an
		// outside tester: a statement of 16 Mi comment lines took 1 GiB).
		return parse.Errorf(p.source, line, "a statement's echo longer than %d MiB or %d lines, starting on line %d, which a record holds whole; expected psql's output of statements, each a record", parse.MaxText>>20, maxHeldLines, e.first+1)
	}
	switch {
	case p.w.ls.Offset()-p.outAt > parse.MaxText:
		return parse.Errorf(p.source, line, "a statement's output longer than %d MiB, which a record holds whole; expected psql's output of statements, each a record", parse.MaxText>>20)
	case line-p.outLine > maxHeldLines:
		return parse.Errorf(p.source, line, "a statement's output of more than %d lines, which a record holds whole; expected psql's output of statements, each a record", maxHeldLines)
	}
	return nil
}
