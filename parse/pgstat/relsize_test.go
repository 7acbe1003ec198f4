package pgstat

import "testing"

// TestRelationSize: a relation_sizes row as the collector records it on
// 17: a table (no owner), an index of it, and a TOAST table whose
// reltuples the server has not estimated yet.
func TestRelationSize(t *testing.T) {
	for row, want := range map[string]RelationSize{
		`{"schema":"public","name":"accounts","kind":"r","table":null,"bytes":25206784,"total_bytes":31236096,"reltuples":200000}`: {
			Schema: "public", Name: "accounts", Kind: "r", Bytes: Num{25206784, true}, TotalBytes: Num{31236096, true}, Tuples: Num{200000, true}},
		`{"schema":"public","name":"accounts_pkey","kind":"i","table":"accounts","bytes":4513792,"total_bytes":4513792,"reltuples":200000}`: {
			Schema: "public", Name: "accounts_pkey", Kind: "i", Table: "accounts", Bytes: Num{4513792, true}, TotalBytes: Num{4513792, true}, Tuples: Num{200000, true}},
		`{"schema":"pg_toast","name":"pg_toast_16392","kind":"t","table":"notes","bytes":0,"total_bytes":8192,"reltuples":-1}`: {
			Schema: "pg_toast", Name: "pg_toast_16392", Kind: "t", Table: "notes", Bytes: Num{0, true}, TotalBytes: Num{8192, true}, Tuples: Num{-1, true}},
	} {
		got, err := ParseRelationSize(row, "relation_sizes")
		if err != nil || got != want {
			t.Errorf("%s:\n got %+v %v\nwant %+v", row, got, err, want)
		}
	}
	if _, err := ParseRelationSize(`{"name":`, "relation_sizes"); err == nil {
		t.Error("a cut row was read")
	}
}
