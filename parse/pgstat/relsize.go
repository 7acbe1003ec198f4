package pgstat

// RelationSize is a row of the collector's relation_sizes reading: a user
// table, index, materialized view or TOAST table, its size on disk and the
// planner's estimate of its rows, as one configuration's server reported
// them in one round.
type RelationSize struct {
	Schema, Name string
	Kind         string // pg_class.relkind: r table, i index, m materialized view, t TOAST table
	Table        string // an index's table, a TOAST table's owner; empty for a table
	// Bytes is pg_relation_size (the main fork); TotalBytes is
	// pg_total_relation_size (with indexes and TOAST, for a table).
	Bytes, TotalBytes Num
	Tuples            Num // pg_class.reltuples: an estimate; -1 (18) or 0 before the first vacuum or analyze
}

// ParseRelationSize reads a relation_sizes row.
func ParseRelationSize(row, source string) (RelationSize, error) {
	var r RelationSize
	err := fields(row, source, func(k string, v Value) {
		switch k {
		case "schema":
			r.Schema = v.Text()
		case "name":
			r.Name = v.Text()
		case "kind":
			r.Kind = v.Text()
		case "table":
			if !v.Null() {
				r.Table = v.Text()
			}
		case "bytes":
			r.Bytes = v.Num()
		case "total_bytes":
			r.TotalBytes = v.Num()
		case "reltuples":
			r.Tuples = v.Num()
		}
	})
	return r, err
}
