package explain

import (
	"strconv"
	"strings"

	"github.com/pgstudy/pgstudy/parse"
	"github.com/pgstudy/pgstudy/parse/internal/num"
)

// textExtra are the detail labels kept as text in a node's Extra. The
// labels in textPairs start a line of several "Label: value" pairs
// separated by two spaces, each kept under its own label.
var textExtra = map[string]bool{
	"Output": true, "Filter": true, "Index Cond": true, "Recheck Cond": true, "Order By": true,
	"Join Filter": true, "Hash Cond": true, "Merge Cond": true, "One-Time Filter": true,
	"TID Cond": true, "Sort Key": true, "Presorted Key": true, "Group Key": true, "Hash Key": true,
	"Sampling": true, "Function Call": true, "Table Function Call": true, "Cache Key": true,
	"Cache Mode": true, "Window": true, "Run Condition": true, "Conflict Resolution": true,
	"Conflict Arbiter Indexes": true, "Conflict Filter": true, "Rows Removed by Conflict Filter": true,
	"Tuples Inserted": true, "Conflicting Tuples": true, "Tuples": true, "Subplans Removed": true,
	"Full-sort Groups": true, "Pre-sorted Groups": true, "Single Copy": true, "Inner Unique": true,
	"Remote SQL": true, "Relations": true, "Heap Blocks": true, "JIT": true, "Functions": true,
	"Options": true, "Timing": true, "Custom Plan Provider": true,
}

var textPairs = map[string]bool{
	"Sort Method": true, "Buckets": true, "Batches": true, "Hits": true, "Storage": true,
	"Planned Partitions": true,
}

// nodeDetail reads a detail line of node n.
func (t *textParser) nodeDetail(n *Node, s string) error {
	label, value, found := cut(s, ": ")
	if !found && strings.HasSuffix(s, ":") {
		label, found = strings.TrimSuffix(s, ":"), true
	}
	if !found {
		if n.NodeType == "ModifyTable" && isModifyTarget(s) {
			put(&n.Extra, "Target Tables", s)
			return nil
		}
		t.warn("detail line not understood")
		return nil
	}
	var ip *parse.Opt[int64]
	var fp *parse.Opt[float64]
	switch label {
	case "Workers Planned":
		ip = &n.WorkersPlanned
	case "Workers Launched":
		ip = &n.WorkersLaunched
	case "Heap Fetches":
		ip = &n.HeapFetches
	case "Index Searches":
		ip = &n.IndexSearches
	case "Rows Removed by Filter":
		fp = &n.RowsRemovedByFilter
	case "Rows Removed by Index Recheck":
		fp = &n.RowsRemovedByIndexRecheck
	case "Rows Removed by Join Filter":
		fp = &n.RowsRemovedByJoinFilter
	case "Disabled":
		b, err := strconv.ParseBool(value)
		if err != nil {
			t.warn("not true or false")
			return nil
		}
		n.Disabled = parse.Some(b)
		return nil
	case "Heap Blocks":
		for kv, rest := field(value); kv != ""; kv, rest = field(rest) {
			k, v := cutEq(kv)
			i, ok := atoi(v)
			switch {
			case ok && k == "exact":
				n.ExactHeapBlocks = parse.Some(i)
			case ok && k == "lossy":
				n.LossyHeapBlocks = parse.Some(i)
			default:
				t.warn("heap blocks not understood")
				return nil
			}
		}
		return nil
	}
	switch {
	case ip != nil:
		i, ok := atoi(value)
		if !ok {
			t.warn("not a whole number")
			return nil
		}
		*ip = parse.Some(i)
		return nil
	case fp != nil:
		f, err := num.ParseFloat(value)
		if err != nil {
			t.warn("not a number")
			return nil
		}
		*fp = parse.Some(f)
		return nil
	}
	if t.common(&n.Buffers, &n.WAL, &n.Extra, label, value, s) {
		return nil
	}
	t.warn("unknown detail line")
	return nil
}

// workerDetail reads a line of a "Worker N:" block.
func (t *textParser) workerDetail(s string) error {
	w := t.worker
	if rest, ok := strings.CutPrefix(s, "actual "); ok {
		if !t.parseActual(rest, &w.ActualStartupTimeMs, &w.ActualTotalTimeMs, &w.ActualRows, &w.ActualLoops) {
			t.warn("worker's actual figures not understood")
		}
		return nil
	}
	label, value, found := cut(s, ": ")
	if !found && strings.HasSuffix(s, ":") {
		label, found = strings.TrimSuffix(s, ":"), true
	}
	if found && t.common(&w.Buffers, &w.WAL, &w.Extra, label, value, s) {
		return nil
	}
	t.warn("worker line not understood")
	return nil
}

// common reads the detail lines nodes and workers share: buffers, I/O
// timings, WAL and the labels kept as text.
func (t *textParser) common(b *Buffers, w *WAL, extra *map[string]any, label, value, s string) bool {
	switch {
	case label == "Buffers" || label == "I/O Timings":
		t.buffersLine(b, label, value)
	case label == "WAL":
		t.walLine(w, value)
	case textPairs[label]:
		for pair := range strings.SplitSeq(s, "  ") {
			k, v, _ := strings.Cut(strings.TrimSpace(pair), ": ")
			put(extra, k, v)
		}
	case textExtra[label]:
		put(extra, label, value)
	default:
		return false
	}
	return true
}

// buffersLine reads "shared hit=1 read=2 dirtied=3 written=4, local ...,
// temp read=5 written=6" (Buffers) or "shared read=1.0 write=2.0, local
// ..., temp ..." (I/O Timings; "read=1.0 write=2.0" in 13-14 and
// "shared/local read=" in 15-16).
//
// Text leaves out the counters that are zero. Those a printed line leaves
// out are set to zero: all ten block counters for Buffers; for I/O
// Timings, the shared read and write times and those of the other scopes
// the line names (the scopes a version has are not known from the text).
func (t *textParser) buffersLine(b *Buffers, label, value string) {
	if label == "Buffers" {
		b.zeroBlocks()
	} else {
		zero(&b.SharedIOReadTimeMs, &b.SharedIOWriteTimeMs)
	}
	if !t.buffersAsPrinted(b, label, value) {
		t.buffersFields(b, label, value)
	}
}

// buffersFields reads the value of a Buffers or I/O Timings line field
// by field, warning at the first it does not understand.
func (t *textParser) buffersFields(b *Buffers, label, value string) {
	// The groups as strings.Split(value, ", ") splits them.
	for rest, more := value, true; more; {
		var group string
		group, rest, more = cut(rest, ", ")
		scope, first := "shared", true
		for kv, rest := field(group); kv != ""; kv, rest = field(rest) {
			if first {
				first = false
				if strings.IndexByte(kv, '=') < 0 {
					scope = t.bufferScope(b, label, kv)
					continue
				}
			}
			k, v := cutEq(kv)
			if !t.bufferCounter(b, label, scope, k, v) {
				t.warn(strings.ToLower(label) + " not understood")
				return
			}
		}
	}
}

// buffersAsPrinted reads the value of a Buffers or I/O Timings line as
// the server prints it, in one pass: groups cut at ", ", each a scope
// ("shared", "local", "temp", "shared/local") and a space, or none, then
// pairs of a word, "=" and a number (digits for blocks, a decimal for
// times), one space apart. It stops at the first text that is not so, and
// returns false; the counters it set by then are those buffersLine's field
// by field reading sets too, to the same values (FuzzBuffers), which then
// reads the line again and says what it did not understand.
func (t *textParser) buffersAsPrinted(b *Buffers, label, s string) bool {
	times := label == "I/O Timings"
	for s != "" {
		scope := "shared"
		if i := wordEnd(s, true); i < len(s) && s[i] == ' ' {
			switch w := s[:i]; w {
			case "shared", "local", "temp", "shared/local":
				scope, s = t.bufferScope(b, label, w), s[i+1:]
			default:
				return false
			}
		}
		for {
			i := wordEnd(s, false)
			if i == 0 || i == len(s) || s[i] != '=' {
				return false
			}
			k, v := s[:i], s[i+1:]
			var f float64
			var whole int64
			var n int
			if times {
				f, n = num.Leading(v)
			} else {
				whole, n = leadingWhole(v)
			}
			// The number ends the line, or a space or ", " follows it.
			rest := v[n:]
			next := rest == "" || rest[0] == ' ' || len(rest) > 2 && rest[0] == ',' && rest[1] == ' '
			if n == 0 || !next || !t.setCounter(b, times, scope, k, f, whole) {
				return false
			}
			if rest == "" {
				return true
			}
			if rest[0] == ' ' {
				s = rest[1:]
				continue
			}
			s = rest[2:] // the next group
			break
		}
	}
	return true
}

// setCounter sets the I/O time (times) or the block counter that scope and
// k name to f or to whole; false when they name none.
func (t *textParser) setCounter(b *Buffers, times bool, scope, k string, f float64, whole int64) bool {
	if times {
		p := ioTime(b, scope, k)
		if p != nil {
			*p = parse.Some(f)
		}
		return p != nil
	}
	p := blockCounter(b, scope, k)
	if p != nil {
		*p = parse.Some(whole)
	}
	return p != nil
}

// wordEnd is the length of the run of lowercase ASCII letters (and
// slashes, when slash) that starts s.
func wordEnd(s string, slash bool) int {
	i := 0
	for i < len(s) && ('a' <= s[i] && s[i] <= 'z' || slash && s[i] == '/') {
		i++
	}
	return i
}

// bufferScope is the scope a group of buffersLine names ("shared/local"
// is "shared"); for I/O Timings, the times of a scope it names are zero
// unless the group sets them.
func (t *textParser) bufferScope(b *Buffers, label, scope string) string {
	if scope == "shared/local" {
		return "shared"
	}
	if label == "I/O Timings" {
		switch scope {
		case "local":
			zero(&b.LocalIOReadTimeMs, &b.LocalIOWriteTimeMs)
		case "temp":
			zero(&b.TempIOReadTimeMs, &b.TempIOWriteTimeMs)
		}
	}
	return scope
}

func (t *textParser) bufferCounter(b *Buffers, label, scope, k, v string) bool {
	if label == "I/O Timings" {
		f, err := num.ParseFloat(v)
		return err == nil && t.setCounter(b, true, scope, k, f, 0)
	}
	i, ok := atoi(v)
	return ok && t.setCounter(b, false, scope, k, 0, i)
}

// ioTime is the I/O time of b that scope and k name ("shared", "read"), or
// nil. (A switch on scope+" "+k built a string each counter.)
func ioTime(b *Buffers, scope, k string) *parse.Opt[float64] {
	read := k == "read"
	if !read && k != "write" {
		return nil
	}
	switch {
	case scope == "shared" && read:
		return &b.SharedIOReadTimeMs
	case scope == "shared":
		return &b.SharedIOWriteTimeMs
	case scope == "local" && read:
		return &b.LocalIOReadTimeMs
	case scope == "local":
		return &b.LocalIOWriteTimeMs
	case scope == "temp" && read:
		return &b.TempIOReadTimeMs
	case scope == "temp":
		return &b.TempIOWriteTimeMs
	}
	return nil
}

// blockCounter is the block counter of b that scope and k name ("shared",
// "hit"), or nil.
func blockCounter(b *Buffers, scope, k string) *parse.Opt[int64] {
	switch scope {
	case "shared":
		switch k {
		case "hit":
			return &b.SharedHitBlocks
		case "read":
			return &b.SharedReadBlocks
		case "dirtied":
			return &b.SharedDirtiedBlocks
		case "written":
			return &b.SharedWrittenBlocks
		}
	case "local":
		switch k {
		case "hit":
			return &b.LocalHitBlocks
		case "read":
			return &b.LocalReadBlocks
		case "dirtied":
			return &b.LocalDirtiedBlocks
		case "written":
			return &b.LocalWrittenBlocks
		}
	case "temp":
		switch k {
		case "read":
			return &b.TempReadBlocks
		case "written":
			return &b.TempWrittenBlocks
		}
	}
	return nil
}

// zeroBlocks sets the block counters not set (not Valid) to zero: zero's
// loop over a list of ten pointers, made at each line, took as long as
// reading the line.
func (b *Buffers) zeroBlocks() {
	z := parse.Some[int64](0)
	if !b.SharedHitBlocks.Valid {
		b.SharedHitBlocks = z
	}
	if !b.SharedReadBlocks.Valid {
		b.SharedReadBlocks = z
	}
	if !b.SharedDirtiedBlocks.Valid {
		b.SharedDirtiedBlocks = z
	}
	if !b.SharedWrittenBlocks.Valid {
		b.SharedWrittenBlocks = z
	}
	if !b.LocalHitBlocks.Valid {
		b.LocalHitBlocks = z
	}
	if !b.LocalReadBlocks.Valid {
		b.LocalReadBlocks = z
	}
	if !b.LocalDirtiedBlocks.Valid {
		b.LocalDirtiedBlocks = z
	}
	if !b.LocalWrittenBlocks.Valid {
		b.LocalWrittenBlocks = z
	}
	if !b.TempReadBlocks.Valid {
		b.TempReadBlocks = z
	}
	if !b.TempWrittenBlocks.Valid {
		b.TempWrittenBlocks = z
	}
}

// zero sets each counter of ps the text left out (not Valid) to zero.
func zero[T any](ps ...*parse.Opt[T]) {
	for _, p := range ps {
		if !p.Valid {
			*p = parse.Opt[T]{Valid: true}
		}
	}
}

// walLine reads "records=1 fpi=2 bytes=3 buffers full=4". Records, full
// page images and bytes the line leaves out are zero.
func (t *textParser) walLine(w *WAL, value string) {
	zero(&w.WALRecords, &w.WALFPI, &w.WALBytes)
	for kv, rest := field(strings.ReplaceAll(value, "buffers full=", "buffers_full=")); kv != ""; kv, rest = field(rest) {
		k, v := cutEq(kv)
		i, ok := atoi(v)
		if !ok {
			t.warn("WAL not understood")
			return
		}
		switch k {
		case "records":
			w.WALRecords = parse.Some(i)
		case "fpi":
			w.WALFPI = parse.Some(i)
		case "bytes":
			w.WALBytes = parse.Some(i)
		case "buffers_full":
			w.WALBuffersFull = parse.Some(i)
		default:
			t.warn("WAL not understood")
			return
		}
	}
}

func isModifyTarget(s string) bool {
	s = strings.TrimPrefix(s, "Foreign ")
	for _, op := range []string{"Insert", "Update", "Delete", "Merge"} {
		if strings.HasPrefix(s, op+" on ") {
			return true
		}
	}
	return false
}
