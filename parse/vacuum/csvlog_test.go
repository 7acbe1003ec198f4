package vacuum

import (
	"os"
	"strings"
	"testing"
)

// TestCSVLogShortRecord: a csvlog record cut short (20 columns of a
// server's 26) is a warning naming its line, not a record that vanishes
// without a word; the whole records beside it are still read.
func TestCSVLogShortRecord(t *testing.T) {
	text, err := os.ReadFile("testdata/logformats/pg17-logformats.csv")
	if err != nil {
		t.Fatal(err)
	}
	records, _, err := Autovacuum(strings.NewReader(string(text)), "whole.csv")
	if err != nil || len(records) == 0 {
		t.Fatalf("the whole log: %d records, %v", len(records), err)
	}
	short := "2024-05-01 10:00:00.123 UTC,,,1234,,66321a.4d2,1,,2024-05-01 09:59:57 UTC,3/17,0,LOG,00000,\"automatic vacuum of table \"\"bench.public.t\"\": index scans: 0\",,,,,,\n"
	got, warns, err := Autovacuum(strings.NewReader(short+string(text)), "cut.csv")
	if err != nil || len(got) != len(records) {
		t.Fatalf("with a short record first: %d records (want %d), %v", len(got), len(records), err)
	}
	if len(warns) == 0 || warns[0].Line != 1 || !strings.Contains(warns[0].Msg, "a csvlog record of 20 columns; expected at least 23") {
		t.Errorf("warnings %v, want the short record at line 1", warns)
	}
}
