package analyze

import "testing"

// TestExcludeRanges: run= and round= take a number or a range, as the
// change-point guard prints them.
func TestExcludeRanges(t *testing.T) {
	ex, err := parseExcludes([]string{"run=13-20", "round=4", "config=a"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    Run
		want bool
	}{
		{Run{RunID: 12, Round: 3}, false},
		{Run{RunID: 13, Round: 3}, true},
		{Run{RunID: 20, Round: 3}, true},
		{Run{RunID: 21, Round: 3}, false},
		{Run{RunID: 30, Round: 4}, true},
		{Run{RunID: 1, Round: 1, Config: "a"}, true},
	} {
		if got := ex.drops(&c.r); got != c.want {
			t.Errorf("run %d round %d config %q: drops %v, want %v", c.r.RunID, c.r.Round, c.r.Config, got, c.want)
		}
	}
	for _, bad := range []string{"run=20-13", "run=-3", "round=a-b", "run=1-"} {
		if _, err := parseExcludes([]string{bad}); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if _, err := parseExcludes([]string{"run=16-9"}); err == nil || err.Error() != `--exclude "run=16-9": the range's first run must not be after its last` {
		t.Errorf("a reversed range: %v", err)
	}
	if err := ex.check(excludes{"run": {"1", "15"}, "round": {"4"}, "config": {"a"}}); err != nil {
		t.Errorf("a range that holds a run of the captures: %v", err)
	}
	if err := ex.check(excludes{"run": {"1", "2"}, "round": {"4"}, "config": {"a"}}); err == nil {
		t.Error("a range that holds no run of the captures is accepted")
	}
}
