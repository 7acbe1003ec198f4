package study

import (
	"slices"
	"strings"
	"testing"
)

// TestSameAs: a control names another configuration with the same
// settings; anything else is refused where it is written.
func TestSameAs(t *testing.T) {
	base := "tests: [{name: t, sql: select 1}]\nconfigs:\n  - {name: a, dsn: x, settings: {work_mem: 4MB}}\n"
	for _, c := range []struct{ cfg, want string }{
		{"  - {name: b, dsn: x, same_as: a, settings: {work_mem: 4MB}}\n", ""},
		{"  - {name: b, dsn: x, same_as: b}\n", "s.yaml:4:32: configuration b: same_as names the configuration itself; expected another configuration it is a copy of"},
		{"  - {name: b, dsn: x, same_as: c}\n", `s.yaml:4:32: configuration b: same_as: no configuration is named "c" (the study has a, b)`},
		{"  - {name: b, dsn: x, same_as: a}\n", "s.yaml:4:32: configuration b: same_as a, but the two declare different settings (none against work_mem=4MB); a control is a copy, with the same settings"},
	} {
		s, err := Parse("s.yaml", []byte(base+c.cfg), Options{})
		switch {
		case c.want == "" && (err != nil || s.Configs[1].SameAs != "a"):
			t.Errorf("%s: %v", c.cfg, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s:\n got %v\nwant %s", c.cfg, err, c.want)
		}
	}
}

func TestWrites(t *testing.T) {
	for _, c := range []struct {
		test Test
		want string
	}{
		{Test{SQL: "select count(*) from t"}, ""},
		{Test{SQL: "  VACUUM (verbose) t"}, "its statement (vacuum)"},
		{Test{SQL: "select 1", Before: StringList{{Value: "update t set v = v + 1"}}}, "a before statement (update)"},
		{Test{SQL: "update t set v = 1"}, "its statement (update)"},
		{Test{Pgbench: "-S"}, ""},
		{Test{Pgbench: "-b select-only"}, ""},
		{Test{Pgbench: "-f mine.sql"}, ""},
		{Test{Pgbench: "-N"}, "pgbench -N (a writing built-in script)"},
		{Test{Pgbench: "--progress-timestamp"}, "pgbench --progress-timestamp (a writing built-in script)"},
		{Test{Sysbench: "oltp_point_select --tables=1"}, ""},
		{Test{Sysbench: "oltp_update_index --tables=1"}, "sysbench oltp_update_index"},
	} {
		if got := c.test.Writes(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.test, got, c.want)
		}
	}
}

// TestDesignWarnings: a fixed order and a reading test placed after a
// writing one are said before anything runs; the default order and reads
// first are not.
func TestDesignWarnings(t *testing.T) {
	parse := func(text string) *Study {
		s, err := Parse("s.yaml", []byte(text), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	configs := "configs: [{name: a, dsn: x}, {name: b, dsn: x}]\n"
	clean := parse(configs + "tests:\n  - {name: scan, sql: select 1}\n  - {name: vac, sql: vacuum t}\n")
	if w := clean.DesignWarnings(); len(w) != 0 {
		t.Errorf("rotate, reads first: %q", w)
	}
	bad := parse(configs + "tests:\n  - {name: vac, sql: vacuum t}\n  - {name: scan, sql: select 1}\nprotocol: {order: fixed}\n")
	w := bad.DesignWarnings()
	if len(w) != 2 || !strings.HasPrefix(w[0], "protocol: order fixed runs each configuration in the same position of every round (a first)") ||
		!strings.HasPrefix(w[1], "test scan runs after vac in every round, which writes (its statement (vacuum))") {
		t.Errorf("fixed, vacuum first:\n%s", strings.Join(w, "\n"))
	}
	one := parse("configs: [{name: a, dsn: x}]\ntests: [{name: t, sql: select 1}]\nprotocol: {order: fixed}\n")
	if w := one.DesignWarnings(); slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, "order fixed") }) {
		t.Errorf("one configuration has no order to confound: %q", w)
	}
}
