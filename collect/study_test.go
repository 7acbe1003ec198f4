package collect

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect/pgtest"
	"github.com/pgstudy/pgstudy/samples/study"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestStudyErrors reads each bad study in testdata/study and compares
// every error, located, with its golden .err file.
func TestStudyErrors(t *testing.T) {
	files, _ := filepath.Glob("testdata/study/*.yaml")
	if len(files) == 0 {
		t.Fatal("no test studies")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			_, err := LoadStudy(file)
			if err == nil {
				t.Fatalf("%s: no error", file)
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(file, ".yaml") + ".err"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
				return
			}
			want, _ := os.ReadFile(golden)
			if got != string(want) {
				t.Errorf("errors differ (-update to accept)\n got:\n%s\nwant:\n%s", got, want)
			}
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				if !strings.HasPrefix(line, file+":") {
					t.Errorf("error without its file: %q", line)
				}
			}
		})
	}
}

func TestExampleStudy(t *testing.T) {
	s, err := parseStudy("example.yaml", exampleStudy)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Configs) != 4 || len(s.Tests) != 3 || s.Protocol.Rounds != 5 || s.Protocol.Order != "rotate" {
		t.Errorf("example: %d configs, %d tests, %d rounds, order %s", len(s.Configs), len(s.Tests), s.Protocol.Rounds, s.Protocol.Order)
	}
	vac := &s.Tests[2]
	for round, want := range map[int]string{1: "between 10000001 and 11000000", 2: "between 11000001 and 12000000", 5: "between 14000001 and 15000000"} {
		sqls, err := beforeSQL(s, vac, "pg17", round)
		if err != nil || len(sqls) != 1 || !strings.Contains(sqls[0], want) {
			t.Errorf("round %d: before %q (%v), want %q", round, sqls, err, want)
		}
	}
	if got := s.Configs[3].Settings["io_method"]; got != "sync" {
		t.Errorf("pg18-sync io_method = %q", got)
	}
	if got := s.Tests[0].Set["enable_indexscan"]; got != "off" {
		t.Errorf("seqscan enable_indexscan = %q, want the text off", got)
	}
}

func TestSchedule(t *testing.T) {
	text := func(order string) []byte {
		return []byte(`
configs:
  - {name: a, dsn: "host=x"}
  - {name: b, dsn: "host=x"}
  - {name: c, dsn: "host=x"}
tests:
  - {name: t1, sql: select 1}
  - {name: t2, sql: select 2}
protocol: {rounds: 3, ` + order + `}
`)
	}
	order := func(s *study.Study) string {
		var b strings.Builder
		for _, it := range Schedule(s) {
			b.WriteString(it.Config.Name)
		}
		return b.String()
	}
	for _, tc := range []struct{ order, want string }{
		{"order: rotate", "abcabc" + "bcabca" + "cabcab"},
		{"order: fixed", "abcabc" + "abcabc" + "abcabc"},
	} {
		s, err := parseStudy("s.yaml", text(tc.order))
		if err != nil {
			t.Fatal(err)
		}
		if got := order(s); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.order, got, tc.want)
		}
	}
	s1, _ := parseStudy("s.yaml", text("order: random, seed: 7"))
	s2, _ := parseStudy("s.yaml", text("order: random, seed: 7"))
	s3, _ := parseStudy("s.yaml", text("order: random, seed: 8"))
	if order(s1) != order(s2) || order(s1) == order(s3) {
		t.Errorf("random: seed 7 gives %s and %s, seed 8 %s", order(s1), order(s2), order(s3))
	}
	// Each turn holds every configuration once, whatever the order.
	for i := 0; i < len(order(s1)); i += 3 {
		turn := order(s1)[i : i+3]
		if !strings.Contains(turn, "a") || !strings.Contains(turn, "b") || !strings.Contains(turn, "c") {
			t.Errorf("random turn %q misses a configuration", turn)
		}
	}
	items := Schedule(s1)
	if len(items) != 18 || items[17].RunID != 18 || items[17].Round != 3 || items[4].Position != 2 {
		t.Errorf("schedule: %d items, last %+v", len(items), items[17])
	}
}

func TestTerminated(t *testing.T) {
	for sql, want := range map[string]bool{
		"select 1":                        false,
		"select 1;":                       true,
		"select 1;  ":                     true,
		"select 1 -- the answer;":         false,
		"select 1; -- done":               true,
		"select ';'":                      false,
		`select ";"`:                      false,
		"select 1 /* ; */":                false,
		"select 1; /* note */":            true,
		"do $$ begin null; end $$":        false,
		"do $f$ begin null; end $f$;":     true,
		"select 'it''s';":                 true,
		"select $1":                       false,
		"vacuum (verbose) t\n-- comment;": false,
	} {
		if got := terminated(sql); got != want {
			t.Errorf("terminated(%q) = %v, want %v", sql, got, want)
		}
	}
}

// TestTemplates: every template pgstudy init writes is a valid study.
func TestTemplates(t *testing.T) {
	for _, name := range TemplateNames {
		s, err := parseStudy(name+".yaml", Templates[name])
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		switch name {
		case "throughput":
			if len(s.Tests) != 3 || !s.Tests[0].Throughput() || s.Tests[1].Sysbench == "" || s.Tests[0].Warmup.Duration == 0 {
				t.Errorf("throughput: %+v", s.Tests)
			}
		case "sysbench-micro":
			checkSysbenchMicro(t, s)
		case "sweep":
			if len(s.Configs) != 9 || s.Configs[4].Name != "pg18.io_method-worker.effective_io_concurrency-16" {
				t.Errorf("sweep: %d configurations, the fifth %q", len(s.Configs), s.Configs[4].Name)
			}
		}
	}
}

// checkSysbenchMicro: seed 003's suite as a study: its tests under the
// series' headings in order, each a Lua script the installed sysbench
// has, and no design warning (no read after a write in a round).
func checkSysbenchMicro(t *testing.T, s *study.Study) {
	t.Helper()
	var groups []string
	for _, test := range s.Tests {
		if n := len(groups); n == 0 || groups[n-1] != test.Group {
			groups = append(groups, test.Group)
		}
		script := strings.Fields(test.Sysbench)[0]
		if _, err := os.Stat(filepath.Join("/usr/share/sysbench", script+".lua")); err != nil {
			pgtest.Missing(t, "test %s: sysbench's %s.lua (Debian's sysbench, which scripts/install-deps installs): %v", test.Name, script, err)
		}
	}
	want := []string{"point queries", "range queries without aggregation", "range queries with aggregation"}
	if strings.Join(groups, "|") != strings.Join(want, "|") || len(s.Tests) != 14 {
		t.Errorf("sysbench-micro: %d tests in groups %q", len(s.Tests), groups)
	}
	if w := s.DesignWarnings(); len(w) != 0 {
		t.Errorf("sysbench-micro warns: %q", w)
	}
}
