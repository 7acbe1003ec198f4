package samples

// The checks a part passes before and after it is decoded: its column
// chunks lie within the file and decompress to what its table can hold,
// and its rows are of its run and its capture.

import (
	"fmt"
	"math"
	"reflect"
	"slices"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// checkChunks checks that the column chunks of leaves, in every row group,
// lie within a file of size bytes.
func checkChunks(md *metadata.FileMetaData, leaves []int, size int64) error {
	return eachChunk(md, leaves, func(g, leaf int, cc *metadata.ColumnChunkMetaData) error {
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		if n := cc.TotalCompressedSize(); start < 4 || n <= 0 || start+n > size {
			return fmt.Errorf("column %s of row group %d is said to span bytes %d to %d of a file of %d",
				md.Schema.Column(leaf).Name(), g, start, start+n, size)
		}
		return nil
	})
}

// eachChunk calls fn for the column chunk of each leaf in each row group.
func eachChunk(md *metadata.FileMetaData, leaves []int, fn func(g, leaf int, cc *metadata.ColumnChunkMetaData) error) error {
	for g := range len(md.RowGroups) {
		rg := md.RowGroup(g)
		for _, leaf := range leaves {
			cc, err := rg.ColumnChunk(leaf)
			if err != nil {
				return err
			}
			if err := fn(g, leaf, cc); err != nil {
				return err
			}
		}
	}
	return nil
}

// textTables are the tables that hold raw text of any length (what a
// client printed, a plan, a statement); a part of another table holds
// numbers and short text, and is far below maxDecodedPart.
var textTables = []string{"outputs", "statements", "notices", "plans", "steps", "probes", "attachments", "capture", "raw_bytes"}

// maxDecodedPart bounds what the columns read of one part may decompress
// to: a page of the text tables may be as large as a client's output, one
// of the others no more than a few megabytes. Every page is held to
// maxDecodedPage besides, whatever a part's footer says (readProps and the
// zstd codec).
func maxDecodedPart(table string) int64 {
	if slices.Contains(textTables, table) {
		return maxDecodedPage
	}
	return 64 << 20
}

// checkDecodedSize refuses a part whose columns, as its footer gives their
// sizes, decompress to more than its table can hold (a zstd bomb: a few
// kilobytes that decompress to gigabytes), before anything is decoded.
func checkDecodedSize(md *metadata.FileMetaData, leaves []int, t *Table) error {
	var total int64
	err := eachChunk(md, leaves, func(_, _ int, cc *metadata.ColumnChunkMetaData) error {
		total += max(0, cc.TotalUncompressedSize())
		return nil
	})
	if err != nil {
		return err
	}
	if limit := maxDecodedPart(t.Name); total > limit {
		return fmt.Errorf("the columns read decompress to %d bytes, more than a part of %s holds (at most %d); "+
			"it was not written by pgstudy, or is damaged", total, t.Name, limit)
	}
	return nil
}

// checkedColumns are the columns to decode of a read that names some:
// those, and the run id and capture id checkRows checks, so that a part
// of another capture or run is refused whatever a reader reads of it.
func checkedColumns(t *Table, columns []string) []string {
	if len(columns) == 0 {
		return nil
	}
	out := columns
	for _, col := range []int{t.runID, t.captureID} {
		if col >= 0 && !slices.Contains(out, t.cols[col].name) {
			out = append(slices.Clip(out), t.cols[col].name)
		}
	}
	return out
}

// checkRows refuses a part whose rows are not of its run or its capture:
// a part renamed, or copied from another capture.
func (r *Reader) checkRows(t *Table, name string, rows reflect.Value, columns []string) error {
	read := func(col int) bool {
		return col >= 0 && (len(columns) == 0 || slices.Contains(columns, t.cols[col].name))
	}
	// A part is named by its first run (CommitMany writes the runs
	// committed together in one part): no row is of an earlier run, and
	// the runs part holds that run. A compacted part holds its range,
	// and its runs part every run of it, once.
	if read(t.runID) && rows.Len() > 0 {
		if err := checkRunIDs(t, name, rows); err != nil {
			return fmt.Errorf("samples: %s %w: a part of another run, renamed? move it out of the capture", r.join(r.dir, t.Name, name), err)
		}
	}
	if read(t.captureID) && len(r.captures) > 0 && rows.Len() > 0 {
		want := r.captures[0].CaptureID
		// Read in place (fieldsOf), not through reflect a row at a time:
		// a fact table has millions of rows.
		f := fieldsOf(rows, 0, t.cols[t.captureID])
		for i := range rows.Len() {
			if got := *(*string)(f.at(i)); got != want {
				return fmt.Errorf("samples: %s holds a row of the capture %s, not of %s: a part of another capture? move it out of the capture",
					r.join(r.dir, t.Name, name), got, want)
			}
		}
	}
	return nil
}

// checkRunIDs checks the run ids of a part's rows against its name.
func checkRunIDs(t *Table, name string, rows reflect.Value) error {
	p, _ := parseRunPart(name)
	least, most := int64(math.MaxInt64), int64(math.MinInt64)
	f := fieldsOf(rows, 0, t.cols[t.runID])
	for i := range rows.Len() {
		id := *(*int64)(f.at(i))
		least, most = min(least, id), max(most, id)
	}
	switch {
	case least < p.first, t.Name == "runs" && least != p.first:
		return fmt.Errorf("holds a row of run %d", least)
	case p.compacted() && most > p.last:
		return fmt.Errorf("holds a row of run %d", most)
	case p.compacted() && t.Name == "runs" && (most != p.last || int64(rows.Len()) != p.last-p.first+1):
		return fmt.Errorf("holds %d rows of runs %d to %d, not each run of its name once", rows.Len(), least, most)
	}
	return nil
}
