package study

import (
	"strings"
	"testing"
)

// TestCgroupKey: a configuration's cgroup is auto unless it says off,
// create or a group's folder; anything else, create without a start step
// and a share outside (0, 1) are errors at their place.
func TestCgroupKey(t *testing.T) {
	s, err := Parse("c.yaml", []byte(`
configs:
  - {name: a, dsn: "postgres://h/db"}
  - {name: b, dsn: "postgres://h/db", cgroup: off}
  - {name: c, dsn: "postgres://h/db", cgroup: create, start: pg_ctl start}
  - {name: d, dsn: "postgres://h/db", cgroup: /sys/fs/cgroup/system.slice/postgresql.service}
tests: [{name: t, sql: select 1}]
disk: {others_share: 0.25}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Configs {
		got = append(got, c.Cgroup)
	}
	if strings.Join(got, ",") != "auto,off,create,/sys/fs/cgroup/system.slice/postgresql.service" || s.Others() != 0.25 {
		t.Errorf("cgroups %v, share %g", got, s.Others())
	}
	_, err = Parse("c.yaml", []byte(`
configs:
  - {name: a, dsn: "postgres://h/db", cgroup: mine}
  - {name: b, dsn: "postgres://h/db", cgroup: create}
  - {name: c, dsn: "postgres://h/db", cgroup: /sys/fs/cgroup/../x}
tests: [{name: t, sql: select 1}]
disk: {others_share: 10}
`), Options{})
	want := []string{
		`c.yaml:3:47: configuration a: cgroup must be auto, off, create or the absolute folder of a cgroup (such as /sys/fs/cgroup/system.slice/postgresql.service), found "mine"`,
		`c.yaml:4:47: configuration b: cgroup: create runs the start step in a cgroup pgstudy makes, and the configuration has no start: command`,
		`c.yaml:5:47: configuration c: cgroup must be auto, off, create`,
		`c.yaml:7:22: disk: others_share must be a fraction between 0 and 1 (0.1 is 10% of the device's bytes), found 10`,
	}
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("errors:\n%v", err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("error %d:\n got %s\nwant %s", i, lines[i], w)
		}
	}
	s, err = Parse("c.yaml", []byte("configs: [{name: a, dsn: \"postgres://h/db\"}]\ntests: [{name: t, sql: select 1}]\n"), Options{})
	if err != nil || s.Others() != DefaultOthersShare || s.Configs[0].Cgroup != CgroupAuto {
		t.Errorf("defaults: %v %g %q", err, s.Others(), s.Configs[0].Cgroup)
	}
}
