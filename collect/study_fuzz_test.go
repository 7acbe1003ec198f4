package collect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseStudy: any text gives a study or located errors, never a panic;
// a study it accepts has a full schedule, and every error names the file.
func FuzzParseStudy(f *testing.F) {
	f.Add(exampleStudy)
	files, _ := filepath.Glob("testdata/study/*.yaml")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte("configs: [{name: a, dsn: 'host=x'}]\ntests: [{name: t, sql: select 1, before: '{{.Round}}'}]\nprotocol: {rounds: 3, order: random, seed: 9}\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		s, err := parseStudy("f.yaml", text)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "f.yaml") {
					t.Fatalf("error without its file: %q", line)
				}
			}
			return
		}
		if s.Protocol.Rounds > 1000 {
			return
		}
		items := Schedule(s)
		if want := s.Protocol.Rounds * len(s.Tests) * len(s.Configs); len(items) != want {
			t.Fatalf("schedule has %d runs, want %d", len(items), want)
		}
		for _, it := range items {
			if _, err := beforeSQL(s, it.Test, it.Config.Name, it.Round); err != nil {
				t.Fatalf("a study that passed its checks fails to render: %v", err)
			}
		}
	})
}
