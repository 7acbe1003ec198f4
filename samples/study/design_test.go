package study

import (
	"fmt"
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
		{"  - {name: b, dsn: x, same_as: c, settings: {work_mem: 4MB}}\n  - {name: c, dsn: x, same_as: b, settings: {work_mem: 4MB}}\n",
			"s.yaml:4:32: configuration b: same_as c, which is itself declared a copy (of b); name the original every copy is compared with\n" +
				"s.yaml:5:32: configuration c: same_as b, which is itself declared a copy (of c); name the original every copy is compared with"},
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
		want string // Why, relations, all
	}{
		{Test{SQL: "select count(*) from t"}, ""},
		{Test{SQL: "  VACUUM (verbose) Public.Accounts"}, "its statement (vacuum) [accounts] false"},
		{Test{SQL: "vacuum"}, "its statement (vacuum) [] true"},
		{Test{SQL: "select 1", Before: StringList{{Value: "update t set v = v + 1"}}}, "a before statement (update) [t] false"},
		{Test{SQL: `delete from only "Knob"`}, "its statement (delete) [knob] false"},
		{Test{SQL: "truncate table a"}, "its statement (truncate) [a] false"},
		{Test{Pgbench: "-S"}, ""},
		{Test{Pgbench: "-b select-only"}, ""},
		{Test{Pgbench: "-f mine.sql"}, ""},
		{Test{Pgbench: "-N"}, "pgbench -N (a writing built-in script) [] true"},
		{Test{Sysbench: "oltp_point_select --tables=1"}, ""},
		{Test{Sysbench: "oltp_update_index --tables=1"}, "sysbench oltp_update_index [] true"},
	} {
		got := ""
		if w := c.test.Writes(); w != nil {
			got = fmt.Sprintf("%s %v %v", w.Why, w.Relations, w.All)
		}
		if got != c.want {
			t.Errorf("%+v: %q, want %q", c.test, got, c.want)
		}
	}
}

// TestReaches: a write reaches a test that reads a relation it writes,
// unless the test rewrites that relation itself first.
func TestReaches(t *testing.T) {
	vacuum := (&Test{SQL: "vacuum accounts"}).Writes()
	knob := (&Test{SQL: "select 1", Before: StringList{{Value: "truncate knob"}}}).Writes()
	for _, c := range []struct {
		w    *Write
		t    Test
		want bool
	}{
		{vacuum, Test{SQL: "select count(*) from accounts"}, true},
		{vacuum, Test{SQL: "select count(*) from branches"}, false},
		{knob, Test{SQL: "select pg_sleep(r) from knob", Before: StringList{{Value: "truncate knob"}}}, false},
		{knob, Test{SQL: "select pg_sleep(r) from knob"}, true},
		// A row inserted leaves what the vacuum left in the table's pages.
		{vacuum, Test{SQL: "select count(*) from accounts", Before: StringList{{Value: "insert into accounts values (1)"}}}, true},
		{(&Test{Pgbench: "-N"}).Writes(), Test{Pgbench: "-S"}, true},
	} {
		if got := c.w.Reaches(&c.t); got != c.want {
			t.Errorf("%s reaches %+v: %v, want %v", c.w.Why, c.t, got, c.want)
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
	bad := parse(configs + "tests:\n  - {name: vac, sql: vacuum t}\n  - {name: scan, sql: select count(*) from t}\nprotocol: {order: fixed}\n")
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
