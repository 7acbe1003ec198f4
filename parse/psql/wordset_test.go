package psql

import "testing"

// TestWordSet checks the keyword lookups that replaced maps: psql echoes
// a statement's first word all in lower or all in upper case; a tag's
// words are upper case; anyCaseKeyword finds any case.
func TestWordSet(t *testing.T) {
	for _, c := range []struct {
		w          string
		has, cased bool
	}{
		{"select", true, true}, {"SELECT", true, true}, {"Select", true, false}, {"sELECT", true, false},
		{"selects", false, false}, {"sel", false, false}, {"do", true, true}, {"DO", true, true},
		{"with", true, true}, {"wITH", true, false}, {"deallocate", true, true}, {"", false, false},
		{"zebra", false, false}, {"abort", true, true}, {"x", false, false},
	} {
		if got := keywords.has(c.w); got != c.has {
			t.Errorf("keywords.has(%q) = %v, want %v", c.w, got, c.has)
		}
		if got := keywords.hasCased(c.w); got != c.cased {
			t.Errorf("keywords.hasCased(%q) = %v, want %v", c.w, got, c.cased)
		}
	}
	for _, c := range []struct {
		l   string
		tag bool
	}{{"SELECT 3", true}, {"SELECT", false}, {"VACUUM", true}, {"INSERT 0 1", true}, {"WITH", false},
		{"CREATE TABLE", true}, {"END", false}, {"Vacuum", false}, {"VACUUMS", false}} {
		if got := isTag(c.l); got != c.tag {
			t.Errorf("isTag(%q) = %v, want %v", c.l, got, c.tag)
		}
	}
}
