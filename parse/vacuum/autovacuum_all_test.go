package vacuum

import (
	"io"

	"github.com/pgstudy/pgstudy/parse"
)

// Autovacuum is every record and warning of AutovacuumSeq's reading at
// once, the warnings of records without a summary last: the tests' view
// of a whole log, which no command needs (they stream).
func Autovacuum(r io.Reader, source string) ([]Record, []parse.Warning, error) {
	return collectAll(func(out *output) error { return readLog(r, source, out) })
}
