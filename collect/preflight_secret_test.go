package collect_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/collect"
)

// TestPreflightMasksPsqlSecret: a psql command that starts with a
// password assignment cannot run (it is not a program), and the message
// saying so must not print the password.
func TestPreflightMasksPsqlSecret(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "study.yaml")
	study := `
configs:
  - name: pq
    dsn: postgres://postgres@127.0.0.1:1/postgres
    client: psql
    psql: PGPASSWORD=hunter2 psql -X
tests:
  - name: one
    sql: select 1
protocol:
  rounds: 1
`
	if err := os.WriteFile(path, []byte(study), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := collect.LoadStudy(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = collect.Collect(context.Background(), s, collect.Options{Out: filepath.Join(dir, "capture"), ToolVersion: "test"})
	if err == nil || !strings.Contains(err.Error(), "cannot run") {
		t.Fatalf("collect: %v, want the psql command refused", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the refusal prints the password: %v", err)
	}
}
