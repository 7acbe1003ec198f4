package vacuum

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The names of relations in the server's messages. PostgreSQL prints them
// raw between double quotes, neither quoted nor escaped (vacuumlazy.c:
// `"%s.%s.%s"` of the database, schema and relation names), so a name
// may hold a double quote, a dot, a colon, spaces or any byte of the
// server's encoding:
//
//   - a quoted name ends at the last quote that the message's text follows
//     (`": index scans: `, `" to remove `, or the message's end), so a
//     quote within it is kept;
//   - a name with more dots than the message joins names ("db.s.t.u" where
//     it prints database, schema and table) holds a dot in one of them,
//     and the text does not tell which: it is read with the table taking
//     the rest ("db", "s", "t.u"), and a warning says so;
//   - 13 and 14 print "schema.table" where 15 and later print
//     "db.schema.table", so "a.b.c" in a "vacuuming" message is read as
//     15's; 13's and 14's later messages name the table alone, which
//     settles it (openRecord);
//   - a name that is not UTF-8 (a server encoding other than UTF8) is kept
//     as read, with a warning: JSON writes its bytes as U+FFFD.

// newRecord starts a record of the table a message names as name, parts
// names joined by dots (see splitName); raw is the line, for warnings.
func (st *stream) newRecord(op, name string, parts int, raw string, line int) (int, bool) {
	db, schema, table, ambiguous, ok := splitName(st.sink.keep(name), parts) // not a part of the input
	if !ok {
		return -1, false
	}
	if ambiguous {
		st.sink.warn(line, raw, ambiguousName(name, db, schema, table))
	}
	if !utf8.ValidString(name) {
		st.sink.warn(line, raw, "a name that is not UTF-8 (the server's encoding is not UTF8?): kept as read; JSON writes its bytes as U+FFFD")
	}
	s := st.sink
	r := s.newRecord()
	r.Line, r.Operation, r.Database, r.Schema, r.Table, r.LogTime, r.PID = line, op, db, schema, table, st.time, st.pid
	i := s.push(r)
	if op == "vacuum" && st.link {
		if schema == "pg_toast" && st.last >= 0 && st.lastSchema != "pg_toast" {
			r.ToastOf = st.lastSchema + "." + st.lastTable
		}
		st.last, st.lastSchema, st.lastTable = i, schema, table
	}
	return i, true
}

// ambiguousName is the warning of a name with more dots than names.
func ambiguousName(name, db, schema, table string) string {
	read := fmt.Sprintf("schema %q, table %q", schema, table)
	if db != "" {
		read = fmt.Sprintf("database %q, ", db) + read
	}
	return fmt.Sprintf("%q has more dots than the names the server joins: one of them holds a dot, and the text does not tell which; read as %s", name, read)
}

// splitName splits name, printed as parts names joined by dots (3:
// database, schema and table; 2: schema and table; 1: the table alone).
// A name with fewer dots is read as fewer names, the last the table, as
// it was printed by a version that names fewer. One with more is
// ambiguous: the first names are read up to a dot each, the table is the
// rest. ok is false for an empty name and for a newline in it.
func splitName(name string, parts int) (db, schema, table string, ambiguous, ok bool) {
	if name == "" || strings.Contains(name, "\n") {
		return "", "", "", false, false
	}
	n := strings.Count(name, ".") + 1
	ambiguous = n > parts
	rest := name
	var first []string // the names before the table
	for range min(n, parts) - 1 {
		var part string
		part, rest, _ = strings.Cut(rest, ".")
		if part == "" {
			return "", "", "", false, false
		}
		first = append(first, part)
	}
	switch len(first) {
	case 2:
		db, schema = first[0], first[1]
	case 1:
		schema = first[0]
	}
	return db, schema, rest, ambiguous, rest != ""
}

// relName is a record's table as the server names it.
func relName(r *Record) string {
	switch {
	case r.Database != "":
		return r.Database + "." + r.Schema + "." + r.Table
	case r.Schema != "":
		return r.Schema + "." + r.Table
	}
	return r.Table
}

// sameRel reports whether name, as a message prints it, is the record's
// table as another message named it: the same text, or one that ends
// with the other after a dot (13's and 14's messages name the table
// alone, "finished analyzing" the database too). The texts are compared,
// not their names, which a dot in a name makes ambiguous.
func sameRel(r *Record, name string) bool {
	whole, afterDot := relEnd(r, name)
	if whole || afterDot {
		return true
	}
	n := relLen(r)
	return len(name) > n && name[len(name)-n-1] == '.' && isWhole(relEnd(r, name[len(name)-n:]))
}

func isWhole(whole, _ bool) bool { return whole }

// relEnd reports how name ends relName(r): as the whole of it, or after
// a dot within it; without building relName, as sameRel is asked of
// every message that names a table.
func relEnd(r *Record, name string) (whole, afterDot bool) {
	parts := [...]string{r.Database, r.Schema, r.Table}
	first := relFirst(r)
	s := name
	for k := len(parts) - 1; k >= first; k-- {
		p := parts[k]
		if len(s) < len(p) { // s starts within p
			i := len(p) - len(s)
			return false, strings.HasSuffix(p, s) && p[i-1] == '.'
		}
		if !strings.HasSuffix(s, p) {
			return false, false
		}
		if s = s[:len(s)-len(p)]; s == "" {
			return k == first, k > first // at the start of p: after the dot before it
		}
		if k == first || s[len(s)-1] != '.' {
			return false, false
		}
		s = s[:len(s)-1]
	}
	return false, false
}

// relFirst is the first of the record's names, database (0), schema or
// table, that relName joins.
func relFirst(r *Record) int {
	switch {
	case r.Database != "":
		return 0
	case r.Schema != "":
		return 1
	}
	return 2
}

// relLen is len(relName(r)).
func relLen(r *Record) int {
	n := len(r.Table)
	if r.Schema != "" || r.Database != "" {
		n += len(r.Schema) + 1
	}
	if r.Database != "" {
		n += len(r.Database) + 1
	}
	return n
}

// nameTable settles the record's names with name, its table alone, as a
// message that names the table alone prints it (sameRel): read from a
// "vacuuming" message with a dot in its names, the record may have split
// them wrongly ("public.a.b" read as database "public", schema "a", table
// "b"; it is 14's schema "public" and table "a.b"). schemaTable says the
// message is 13's or 14's only ("found"), so that the "vacuuming" before
// it printed "schema.table".
func nameTable(r *Record, name string, schemaTable bool) {
	if r.Table == name && (!schemaTable || r.Database == "") {
		return
	}
	if _, afterDot := relEnd(r, name); !afterDot {
		return
	}
	rn := relName(r)
	prefix := rn[:len(rn)-len(name)-1]
	if db, schema, ok := strings.Cut(prefix, "."); ok && db == r.Database && !schemaTable {
		r.Schema = schema // 15+: the database stays
	} else {
		r.Database, r.Schema = "", prefix // 13 and 14 print "schema.table"
	}
	r.Table = strings.Clone(name)
}

// nameDatabase completes the names of a record read without its database
// (ANALYZE's "analyzing" prints "schema.table") with name, as a message
// that names the database prints it: the database is what comes before
// the record's name; when name does not end with it, name is read whole.
func nameDatabase(r *Record, name string) {
	if r.Database != "" {
		return
	}
	switch rn := relName(r); {
	case r.Schema != "" && strings.HasSuffix(name, "."+rn):
		r.Database = strings.Clone(name[:len(name)-len(rn)-1])
	default:
		if db, schema, table, _, ok := splitName(strings.Clone(name), 3); ok {
			r.Database, r.Schema, r.Table = db, schema, table
		}
	}
}

// quotedTo takes the quoted name that s starts with, up to the last quote
// that closing (which starts with it) follows, not empty; rest follows
// the closing quote. `"` as closing ends the name at the last quote of s.
func quotedTo(s, closing string) (name, rest string, ok bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", "", false
	}
	i := lastIndex(s[1:], closing)
	if i <= 0 {
		return "", "", false
	}
	return s[1 : 1+i], s[2+i:], true
}
