package samples

// The checks of a part's Parquet metadata before its rows are decoded:
// its column names, the columns asked for, the schema arrow wrote in it.

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// renamedColumn finds a damaged column name. A part may lack columns
// added after it was written, or have columns added after this pgstudy;
// not both: that is a damaged column name (a flipped byte in the footer),
// and the column would read as absent. It returns a missing column and
// the unknown one, or "" when the names are sound.
func renamedColumn(md *metadata.FileMetaData, t *Table) (missing, unknown string) {
	for i := range md.Schema.NumColumns() {
		name := md.Schema.Column(i).Name()
		if !slices.ContainsFunc(t.cols, func(c column) bool { return c.name == name }) {
			unknown = name
		}
	}
	if unknown == "" {
		return "", ""
	}
	for _, c := range t.cols {
		if md.Schema.ColumnIndexByName(c.name) < 0 {
			return c.name, unknown
		}
	}
	return "", ""
}

// pickColumns finds, by name, the leaves of the columns T has (those in
// only, when only is given). A missing column is an error unless it is
// nullable: a part written before the column was added.
func pickColumns(md *metadata.FileMetaData, t *Table, only []string) (leaves []int, wanted []column, err error) {
	for _, c := range t.cols {
		if len(only) > 0 && !slices.Contains(only, c.name) {
			continue
		}
		idx := md.Schema.ColumnIndexByName(c.name)
		if idx < 0 {
			if !c.nullable {
				return nil, nil, fmt.Errorf("column %s is missing", c.name)
			}
			continue
		}
		leaves = append(leaves, idx)
		wanted = append(wanted, c)
	}
	return leaves, wanted, nil
}

// ignoreArrowSchema hides the Arrow schema a part stores from the
// Parquet reader, which decodes it with lengths taken on trust: a damaged
// one can make it allocate gigabytes, a crash (out of memory) rather than
// a panic that can be recovered. The Parquet schema gives the same Arrow
// types for every column pgstudy writes.
func ignoreArrowSchema(md *metadata.FileMetaData) {
	for _, kv := range md.KeyValueMetadata() {
		if kv.Key == "ARROW:schema" {
			kv.Key = "pgstudy:ignored-arrow-schema"
		}
	}
}

// size is the size of a part being read.
func size(src parquet.ReaderAtSeeker) int64 {
	n, err := src.Seek(0, io.SeekEnd)
	if err != nil {
		return -1
	}
	return n
}

// checkPartMeta checks the schema metadata of a part: a part of a newer
// format may mean anything, so it is refused rather than misread.
func checkPartMeta(find func(string) *string, table string) error {
	v := find(MetaFormatVersion)
	if v == nil {
		return fmt.Errorf("not a pgstudy part: no %s metadata", MetaFormatVersion)
	}
	n, err := strconv.Atoi(*v)
	if err != nil || n < 1 {
		return fmt.Errorf("bad %s metadata %q", MetaFormatVersion, *v)
	}
	if n > FormatVersion {
		return fmt.Errorf("capture format version %d is newer than this pgstudy reads (%d); use a newer pgstudy", n, FormatVersion)
	}
	if tn := find(MetaTable); tn != nil && *tn != table {
		return fmt.Errorf("part of table %s found in folder %s", *tn, table)
	}
	return nil
}

// errChanged is the error of a part that was listed and is gone: the
// capture was compacted (or resumed, which removes leftovers) while it
// was read.
func errChanged(part string) error {
	return fmt.Errorf("samples: %s was removed while the capture was read (was it compacted meanwhile?); run the command again", part)
}
