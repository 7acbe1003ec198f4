package collect

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressPlainAndTerminal(t *testing.T) {
	s, err := parseStudy("s.yaml", []byte("configs: [{name: a, dsn: 'host=x password=hunter2-secret'}, {name: b, dsn: 'host=x'}]\ntests: [{name: t, sql: select 1}]\nprotocol: {rounds: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	items := Schedule(s)
	red := NewRedactor(s)

	var plain bytes.Buffer
	p := NewProgress(&plain, false, false, red)
	p.Begin(len(items), 1)
	p.RunStart(items[1])
	p.RunEnd(items[1], "ok", 1500*time.Millisecond, "")
	p.RunStart(items[2])
	p.RunEnd(items[2], "failed", time.Second, "password hunter2-secret rejected")
	p.End()
	want := "resuming: 1 of 4 runs are already in the capture\n" +
		"run 2/4: round 1, t on b, position 2\n" +
		"run 2/4 ok: t on b in 1.5s\n" +
		"run 3/4: round 2, t on b, position 1\n" +
		"run 3/4 failed: round 2, t on b: password ******** rejected\n"
	if plain.String() != want {
		t.Errorf("plain progress:\n%s\nwant:\n%s", plain.String(), want)
	}

	var term bytes.Buffer
	p = NewProgress(&term, true, false, red)
	p.Begin(len(items), 0)
	p.RunStart(items[0])
	p.RunEnd(items[0], "ok", time.Second, "")
	p.RunStart(items[1])
	p.End()
	out := term.String()
	for _, want := range []string{"\r\x1b[K[1/4] round 1/2: t on a (position 1)", "[2/4] round 1/2: t on b (position 2)", "ETA "} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal progress lacks %q:\n%q", want, out)
		}
	}
	if strings.Count(out, "\n") != 0 {
		t.Errorf("terminal progress printed whole lines for runs that went well: %q", out)
	}

	var quiet bytes.Buffer
	p = NewProgress(&quiet, false, true, red)
	p.Begin(len(items), 0)
	p.RunStart(items[0])
	p.RunEnd(items[0], "ok", time.Second, "")
	p.End()
	if quiet.Len() != 0 {
		t.Errorf("--quiet printed %q", quiet.String())
	}
}
