package vacuum

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/parse"
)

// The edge cases of an outside tester's report and the others of their
// classes: numbers that do not fit their fields, a summary line repeated
// within an entry, names that hold quotes, dots or bytes that are not
// UTF-8, an entry cut short. Each input is a real entry edited by hand;
// the case says which.

// pg18Entry is the first autovacuum entry of testdata/autovacuum/
// pg18-autovacuum.log (its lines 11 to 22): "automatic vacuum of table
// "postgres.public.t"", read here from line 1.
func pg18Entry(t *testing.T) string {
	t.Helper()
	return strings.Join(fixtureLines(t, "autovacuum/pg18-autovacuum.log")[10:22], "")
}

// pg13Entry is the first autovacuum entry of pg13-autovacuum.log (its
// lines 6 to 12).
func pg13Entry(t *testing.T) string {
	t.Helper()
	return strings.Join(fixtureLines(t, "autovacuum/pg13-autovacuum.log")[5:12], "")
}

// edit is s with old replaced by new, which must be there.
func edit(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q is not in the entry", old)
	}
	return strings.Replace(s, old, new, 1)
}

// everyIntegerTo is the entry with every integer of its summary lines and
// its index scans made n.
func everyIntegerTo(entry, n string) string {
	lines := strings.SplitAfter(entry, "\n")
	for i, l := range lines {
		words := strings.Split(l, " ")
		for k, w := range words {
			core := strings.Trim(w, "(),\n")
			if core != "" && strings.Trim(core, "0123456789") == "" && (i > 0 || k == len(words)-1) {
				words[k] = strings.Replace(w, core, n, 1)
			}
		}
		lines[i] = strings.Join(words, " ")
	}
	return strings.Join(lines, "")
}

const maxUint64 = "18446744073709551615" // UINT64_FORMAT's largest, how 18 prints WAL bytes

// TestAutovacuumEdges reads edited autovacuum entries.
func TestAutovacuumEdges(t *testing.T) {
	pg18, pg13 := pg18Entry(t), pg13Entry(t)
	const walLine = "WAL usage: 462 records, 3 full page images, 52018 bytes, 0 buffers full"
	for _, tc := range []struct {
		name  string
		in    string
		check func(t *testing.T, r *Record, warns []parse.Warning)
	}{
		{"WAL bytes of 2^64-1: the other WAL figures are read", edit(t, pg18, "52018 bytes", maxUint64+" bytes"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:11: "18446744073709551615" does not fit a 64-bit integer: its field is left out (unknown, not zero): "WAL usage: 462 records, 3 full page images, 18446744073709551615 bytes, 0 buffers full"`)
			checkField(t, "wal_bytes", r.WALBytes, nil)
			checkField(t, "wal_records", r.WALRecords, wantI(462))
			checkField(t, "wal_full_page_images", r.WALFullPageImages, wantI(3))
			checkField(t, "wal_buffers_full", r.WALBuffersFull, wantI(0))
		}},
		{"WAL bytes of 10^18, 19 digits", edit(t, pg18, "52018 bytes", "1000000000000000000 bytes"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			checkField(t, "wal_bytes", r.WALBytes, wantI(1e18))
			checkField(t, "wal_records", r.WALRecords, wantI(462))
		}},
		{"WAL bytes of 2^63-1, the largest that fits, with leading zeros", edit(t, pg18, "52018 bytes", "0009223372036854775807 bytes"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			checkField(t, "wal_bytes", r.WALBytes, wantI(9223372036854775807))
		}},
		{"every integer 2^64-1: each field left out, each number warned of, no line lost", everyIntegerTo(pg18, maxUint64), func(t *testing.T, r *Record, warns []parse.Warning) {
			if len(warns) != 26 {
				t.Errorf("%d warnings, want 26 (one per number): %v", len(warns), warns)
			}
			for _, w := range warns {
				if !strings.Contains(w.Msg, "does not fit a 64-bit integer") {
					t.Errorf("warning %s", w)
				}
			}
			v := reflect.ValueOf(*r)
			for i := range v.NumField() {
				if f := v.Field(i); f.Type() == reflect.TypeFor[*int64]() && !f.IsNil() {
					t.Errorf("%s = %d, want absent", v.Type().Field(i).Name, f.Elem().Int())
				}
			}
			checkField(t, "pages_scanned_pct", r.PagesScannedPct, wantF(100))
			checkField(t, "avg_write_mb_s", r.AvgWriteMBs, wantF(0.181))
			checkField(t, "elapsed_s", r.ElapsedS, wantF(0.13))
			if r.IndexScan != "not needed" {
				t.Errorf("index scan %q", r.IndexScan)
			}
		}},
		{"index scans out of range: the record is kept", edit(t, pg18, "index scans: 0", "index scans: 99999999999999999999"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:1: "99999999999999999999" does not fit a 64-bit integer: its field is left out (unknown, not zero): "2026-11-29 19:54:39.561 UTC [23736] LOG:  automatic vacuum of table \"postgres.public.t\": index scans: 99999999999999999999"`)
			checkField(t, "index_scans", r.IndexScans, nil)
			checkField(t, "pages_scanned", r.PagesScanned, wantI(459))
		}},
		{"13's tuples, doubles printed %.0f, beyond an int64", edit(t, pg13, "50000 remain", "100000000000000000000 remain"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:3: "100000000000000000000" does not fit a 64-bit integer: its field is left out (unknown, not zero): "tuples: 0 removed, 100000000000000000000 remain, 0 are dead but not yet removable, oldest xmin: 488"`)
			checkField(t, "tuples_remain", r.TuplesRemain, nil)
			checkField(t, "tuples_removed", r.TuplesRemoved, wantI(0))
			checkField(t, "oldest_xmin", r.OldestXmin, wantI(488))
		}},
		{"an elapsed time beyond a float64", edit(t, pg18, "elapsed: 0.13 s", "elapsed: 1"+strings.Repeat("0", 400)+".13 s"), func(t *testing.T, r *Record, warns []parse.Warning) {
			if len(warns) != 1 || warns[0].Line != 12 || !strings.Contains(warns[0].Msg, "does not fit a float64") {
				t.Errorf("warnings %v; want one at line 12 of a number that does not fit a float64", warns)
			}
			checkField(t, "elapsed_s", r.ElapsedS, nil)
			checkField(t, "cpu_user_s", r.CPUUserS, wantF(0.02))
		}},
		{"a negative count: the line left out, said so", edit(t, pg18, "982 hits", "-5 hits"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:10: a negative figure in autovacuum entry, where the server prints counts, sizes and durations (a clock set back, or the line garbled): the line is not read, its fields left out (unknown, not zero): "buffer usage: -5 hits, 0 reads, 3 dirtied"`)
			checkField(t, "buffer_hits", r.BufferHits, nil)
			checkField(t, "buffer_dirtied", r.BufferDirtied, nil)
			checkField(t, "wal_records", r.WALRecords, wantI(462))
		}},
		{"negative index scans: that figure left out, the entry read on", edit(t, pg18, "index scans: 0", "index scans: -1"), func(t *testing.T, r *Record, warns []parse.Warning) {
			if len(warns) != 1 || !strings.Contains(warns[0].Msg, "index scans of -1, below zero") {
				t.Errorf("warnings %v; want one, of the negative index scans", warns)
			}
			checkField(t, "index_scans", r.IndexScans, nil)
			checkField(t, "buffer_dirtied", r.BufferDirtied, wantI(3))
			checkField(t, "wal_records", r.WALRecords, wantI(462))
		}},
		{"a negative elapsed time (the clock set back): the line left out, not said to be missing", edit(t, pg18, "elapsed: 0.13 s", "elapsed: -2.50 s"), func(t *testing.T, r *Record, warns []parse.Warning) {
			if len(warns) != 1 || warns[0].Line != 12 || !strings.Contains(warns[0].Msg, "a negative figure") {
				t.Errorf("warnings %v; want one, of the negative figure at line 12", warns)
			}
			checkField(t, "elapsed_s", r.ElapsedS, nil)
			checkField(t, "cpu_user_s", r.CPUUserS, nil)
			checkField(t, "wal_bytes", r.WALBytes, wantI(52018))
		}},
		{"a negative number too long for an int64", edit(t, pg18, "462 records", "-99999999999999999999 records"), func(t *testing.T, r *Record, warns []parse.Warning) {
			if len(warns) != 1 || !strings.Contains(warns[0].Msg, "a negative figure") {
				t.Errorf("warnings %v", warns)
			}
			checkField(t, "wal_records", r.WALRecords, nil)
			checkField(t, "wal_bytes", r.WALBytes, nil)
		}},
		{"an analyze entry given a line only a vacuum prints", edit(t, strings.Join(fixtureLines(t, "autovacuum/pg18-autovacuum.log")[5:10], ""), "\tavg read rate", "\tpages: 0 removed, 459 remain, 459 scanned (100.00% of total), 0 eagerly scanned\n\tavg read rate"), func(t *testing.T, r *Record, warns []parse.Warning) {
			if len(warns) != 1 || warns[0].Line != 2 || !strings.Contains(warns[0].Msg, "a line only a vacuum prints") {
				t.Errorf("warnings %v; want one, at line 2", warns)
			}
			if r.Operation != "analyze" {
				t.Errorf("operation %q", r.Operation)
			}
			checkField(t, "pages_remain", r.PagesRemain, nil)
			checkField(t, "buffer_hits", r.BufferHits, wantI(239))
		}},
		{"a blank line inside the entry: warned, the entry read on", edit(t, pg18, "\tbuffer usage", "\n\tbuffer usage"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:10: a blank line inside an entry (another program's output, or a line cut short): left out, and the entry read on: ""`)
			checkField(t, "buffer_hits", r.BufferHits, wantI(982))
			checkField(t, "wal_bytes", r.WALBytes, wantI(52018))
			checkField(t, "elapsed_s", r.ElapsedS, wantF(0.13))
		}},
		{"a line of blanks inside the entry", edit(t, pg18, "\tbuffer usage", "   \n\tbuffer usage"), func(t *testing.T, r *Record, warns []parse.Warning) {
			if len(warns) != 1 || warns[0].Line != 10 || !strings.HasPrefix(warns[0].Msg, "a blank line inside an entry") {
				t.Errorf("warnings %v", warns)
			}
			checkField(t, "elapsed_s", r.ElapsedS, wantF(0.13))
		}},
		{"WAL usage twice: the first kept", edit(t, pg18, walLine+"\n", walLine+"\n\tWAL usage: 1 records, 0 full page images, 99 bytes, 0 buffers full\n"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:12: a second line of this kind in autovacuum entry: the first is kept, this one is not read: "WAL usage: 1 records, 0 full page images, 99 bytes, 0 buffers full"`)
			checkField(t, "wal_bytes", r.WALBytes, wantI(52018))
			checkField(t, "wal_records", r.WALRecords, wantI(462))
		}},
		{"17's buffer line after 18's: one kind of line", edit(t, pg18, "\tWAL usage", "\tbuffer usage: 1 hits, 2 misses, 3 dirtied\n\tWAL usage"), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:11: a second line of this kind in autovacuum entry: the first is kept, this one is not read: "buffer usage: 1 hits, 2 misses, 3 dirtied"`)
			checkField(t, "buffer_reads", r.BufferReads, wantI(0))
			checkField(t, "buffer_misses", r.BufferMisses, nil)
			checkField(t, "buffer_hits", r.BufferHits, wantI(982))
		}},
		{"a double quote in the table's name", edit(t, pg18, `"postgres.public.t"`, `"postgres.public.t"x"`), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			if r.Database != "postgres" || r.Schema != "public" || r.Table != `t"x` {
				t.Errorf("names %q %q %q", r.Database, r.Schema, r.Table)
			}
		}},
		{"a name that ends as the entry's first line does", edit(t, pg18, `"postgres.public.t": index scans: 0`, `"postgres.public.x": index scans: 1": index scans: 0`), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			checkField(t, "index_scans", r.IndexScans, wantI(0))
			if r.Table != `x": index scans: 1` {
				t.Errorf("table %q", r.Table)
			}
		}},
		{"spaces, a colon, non-ASCII", edit(t, pg18, `"postgres.public.t"`, `"postgres.my schema.t: ü"`), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			if r.Schema != "my schema" || r.Table != "t: ü" {
				t.Errorf("names %q %q", r.Schema, r.Table)
			}
		}},
		{"a dot in a name: ambiguous, said so", edit(t, pg18, `"postgres.public.t"`, `"postgres.public.a.b"`), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:1: "postgres.public.a.b" has more dots than the names the server joins: one of them holds a dot, and the text does not tell which; read as database "postgres", schema "public", table "a.b": "2026-11-29 19:54:39.561 UTC [23736] LOG:  automatic vacuum of table \"postgres.public.a.b\": index scans: 0"`)
			if r.Database != "postgres" || r.Schema != "public" || r.Table != "a.b" {
				t.Errorf("names %q %q %q", r.Database, r.Schema, r.Table)
			}
		}},
		{"a name not UTF-8 (LATIN1)", edit(t, pg18, `"postgres.public.t"`, "\"postgres.public.t\xe9\""), func(t *testing.T, r *Record, warns []parse.Warning) {
			if len(warns) != 1 || !strings.Contains(warns[0].Msg, "not UTF-8") {
				t.Errorf("warnings %v", warns)
			}
			if r.Table != "t\xe9" {
				t.Errorf("table %q", r.Table)
			}
		}},
		{"cut short by the end of the log", strings.Join(strings.SplitAfter(pg18, "\n")[:3], ""), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:1: entry without its "system usage" line, which every version prints: cut short (the end of the log, or lines lost)?: "postgres.public.t"`)
			checkField(t, "tuples_remain", r.TuplesRemain, wantI(50000))
		}},
		{"cut short within a line", strings.Join(strings.SplitAfter(pg18, "\n")[:10], "") + "\tWAL usage: 462 records, 3 full page ima", func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns, `x.log:11: unrecognized line in autovacuum entry: "WAL usage: 462 records, 3 full page ima"`,
				`x.log:1: entry without its "system usage" line, which every version prints: cut short (the end of the log, or lines lost)?: "postgres.public.t"`)
		}},
		{"13's entry cut before its WAL line, after system usage", strings.Join(strings.SplitAfter(pg13, "\n")[:6], ""), func(t *testing.T, r *Record, warns []parse.Warning) {
			checkWarnings(t, warns) // 13 prints its WAL usage last: not told from an entry without one
			checkField(t, "elapsed_s", r.ElapsedS, wantF(0.35))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Autovacuum(strings.NewReader(tc.in), "x.log")
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1; warnings %v", len(recs), warns)
			}
			checkRecords(t, recs, warns)
			tc.check(t, &recs[0], warns)
		})
	}
}

// TestVacuumVerboseEdges reads edited VACUUM (VERBOSE) outputs of psql
// (outputs_test.go, vacuum_test.go).
func TestVacuumVerboseEdges(t *testing.T) {
	const truncated = "INFO:  table \"tr\": truncated 345 to 87 pages\n"
	twoPasses := func(a, b string) string { // pg13ThreePasses with two passes' dead tuples a and b
		s := edit(t, pg13ThreePasses, `"m": removed 174472 row versions`, `"m": removed `+a+` row versions`)
		return edit(t, s, `"m": removed 174472 row versions`, `"m": removed `+b+` row versions`)
	}
	for _, tc := range []struct {
		name  string
		in    string
		check func(t *testing.T, recs []Record, warns []parse.Warning)
	}{
		{"14, a dot in the table's name: told by the messages that name it alone", strings.ReplaceAll(edit(t, pg14Truncated, `"public.tr"`, `"public.t.r"`), `table "tr"`, `table "t.r"`), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "t.r")
			if r.Database != "" || r.Schema != "public" {
				t.Errorf("names %q %q %q", r.Database, r.Schema, r.Table)
			}
			if recs[1].ToastOf != "public.t.r" {
				t.Errorf("TOAST record's main table %q", recs[1].ToastOf)
			}
		}},
		{"14, a dot in the schema's name", edit(t, pg14Truncated, `"public.tr"`, `"my.schema.tr"`), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "tr")
			if r.Database != "" || r.Schema != "my.schema" {
				t.Errorf("names %q %q %q", r.Database, r.Schema, r.Table)
			}
		}},
		{"15, a dot in the table's name: ambiguous, said so", strings.ReplaceAll(edit(t, pg15Truncated, `table "tr"`, `table "t.r"`), `"postgres.public.tr"`, `"postgres.public.t.r"`), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:2: "postgres.public.t.r" has more dots than the names the server joins: one of them holds a dot, and the text does not tell which; read as database "postgres", schema "public", table "t.r": "INFO:  vacuuming \"postgres.public.t.r\""`)
			r := recordOf(t, recs, "t.r")
			checkField(t, "pages_removed", r.PagesRemoved, wantI(258))
		}},
		{"17, quotes in an index's name", edit(t, pg17Finished, `index "t_pkey"`, `index "t"pkey"`), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			if r := recordOf(t, recs, "t"); r.Indexes[0].Name != `t"pkey` {
				t.Errorf("index %q", r.Indexes[0].Name)
			}
		}},
		{"14, truncated in two steps (a lock waiter): summed", edit(t, pg14Truncated, truncated, "INFO:  table \"tr\": truncated 345 to 200 pages\nINFO:  table \"tr\": truncated 200 to 87 pages\n"), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns)
			r := recordOf(t, recs, "tr")
			checkField(t, "pages_removed", r.PagesRemoved, wantI(258))
			checkField(t, "pages_remain", r.PagesRemain, wantI(87))
		}},
		{"14, a second step that does not follow the first", edit(t, pg14Truncated, truncated, "INFO:  table \"tr\": truncated 345 to 200 pages\nINFO:  table \"tr\": truncated 190 to 87 pages\n"), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:17: a truncation that does not start where the one before ended: not read: "INFO:  table \"tr\": truncated 190 to 87 pages"`)
			r := recordOf(t, recs, "tr")
			checkField(t, "pages_removed", r.PagesRemoved, wantI(145))
			checkField(t, "pages_remain", r.PagesRemain, wantI(200))
		}},
		{"14, found twice: the first kept", edit(t, pg14Truncated, truncated, "INFO:  table \"tr\": found 1 removable, 2 nonremovable row versions in 3 out of 4 pages\n"+truncated), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:16: a second "found" message for this table: the first is kept, this one is not read: "INFO:  table \"tr\": found 1 removable, 2 nonremovable row versions in 3 out of 4 pages"`)
			r := recordOf(t, recs, "tr")
			checkField(t, "tuples_removed", r.TuplesRemoved, wantI(15000))
			checkField(t, "pages_scanned", r.PagesScanned, wantI(345))
		}},
		{"17, an index's line twice: the first kept", edit(t, pg17Finished, "avg read rate", `index "t_pkey": pages: 1 in total, 0 newly deleted, 0 currently deleted, 0 reusable`+"\navg read rate"), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:11: a second line of this kind in VACUUM summary: the first is kept, this one is not read: "index \"t_pkey\": pages: 1 in total, 0 newly deleted, 0 currently deleted, 0 reusable"`)
			checkField(t, "t_pkey pages_total", recordOf(t, recs, "t").Indexes[0].PagesTotal, wantI(275))
		}},
		{"14, a line of an index's DETAIL twice", edit(t, pg14Truncated, "40 index pages were newly deleted.\n", "40 index pages were newly deleted.\n41 index pages were newly deleted.\n"), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:10: a second line of this kind in DETAIL: the first is kept, this one is not read: "41 index pages were newly deleted."`)
			checkField(t, "tr_pkey newly deleted", recordOf(t, recs, "tr").Indexes[0].PagesNewlyDeleted, wantI(40))
		}},
		{"13, passes whose sum does not fit: left out for good", edit(t, twoPasses("9000000000000000000", "9000000000000000000"), `"m": removed 131056`, `"m": removed 1`), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:19: the sum of the dead item identifiers of the passes does not fit a 64-bit integer: left out (unknown, not zero): "INFO:  \"m\": removed 9000000000000000000 row versions in 965 pages"`)
			r := recordOf(t, recs, "m")
			checkField(t, "dead_item_ids", r.DeadItemIDs, nil)
			checkField(t, "dead_item_pages", r.DeadItemPages, wantI(2655))
		}},
		{"13, a pass's number that does not fit", twoPasses(maxUint64, "1"), func(t *testing.T, recs []Record, warns []parse.Warning) {
			checkWarnings(t, warns, `in:12: "18446744073709551615" does not fit a 64-bit integer: its field is left out (unknown, not zero): "INFO:  \"m\": removed 18446744073709551615 row versions in 965 pages"`)
			checkField(t, "dead_item_ids", recordOf(t, recs, "m").DeadItemIDs, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, warns, err := Parse(strings.NewReader(tc.in), "in")
			if err != nil {
				t.Fatal(err)
			}
			checkRecords(t, recs, warns)
			tc.check(t, recs, warns)
		})
	}
}

// TestAutovacuumLineEnds: a log with CRLF line ends gives the records of
// the same log with LF, and no warning; a NUL byte within an entry
// costs the line up to it, with a warning naming the line, and the
// entry is read without it.
func TestAutovacuumLineEnds(t *testing.T) {
	for _, f := range []string{"autovacuum/pg13-autovacuum.log", "autovacuum/pg18-autovacuum.log"} {
		lf := strings.Join(fixtureLines(t, f), "")
		want, _, err := Autovacuum(strings.NewReader(lf), "x.log")
		if err != nil {
			t.Fatal(err)
		}
		got, warns, err := Autovacuum(strings.NewReader(strings.ReplaceAll(lf, "\n", "\r\n")), "x.log")
		if err != nil || len(warns) > 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s with CRLF: %d records (LF: %d), warnings %v, error %v", f, len(got), len(want), warns, err)
		}
	}
	in := edit(t, pg18Entry(t), "3 dirtied", "3 dir\x00tied")
	recs, warns, err := Autovacuum(strings.NewReader(in), "x.log")
	if err != nil || len(recs) != 1 || len(warns) == 0 || warns[0].Line != 10 || !strings.HasPrefix(warns[0].Msg, "1 byte of binary data") || !strings.Contains(warns[0].Msg, "with the 39 bytes of text before them") {
		t.Errorf("a NUL at line 10: %d records, warnings %v, error %v; want the record, and line 10 warned about", len(recs), warns, err)
	}
}

// TestSameRel: sameRel, which compares without building relName, gives
// what comparing the texts gives, on names with dots in every place.
func TestSameRel(t *testing.T) {
	parts := []string{"", "t", "a.b", ".", "x.", ".y", "public", "s.t"}
	for _, db := range parts {
		for _, schema := range parts {
			for _, table := range parts[1:] {
				if db != "" && schema == "" {
					continue
				}
				r := &Record{Database: db, Schema: schema, Table: table}
				rn := relName(r)
				if relLen(r) != len(rn) {
					t.Errorf("relLen(%q) = %d", rn, relLen(r))
				}
				for _, name := range append([]string{rn, "." + rn, "q." + rn, rn + "x", "x" + rn}, parts...) {
					want := name == rn || strings.HasSuffix(rn, "."+name) || strings.HasSuffix(name, "."+rn)
					if got := sameRel(r, name); got != want {
						t.Errorf("sameRel(%q, %q) = %v, want %v", rn, name, got, want)
					}
				}
			}
		}
	}
}
