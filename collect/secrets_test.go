package collect

import (
	"strings"
	"testing"

	"github.com/pgstudy/pgstudy/samples/study"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// redactorOf parses a study and returns it with its redactor.
func redactorOf(t *testing.T, text string) (*study.Study, *Redactor) {
	t.Helper()
	s, err := parseStudy("s.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s, NewRedactor(s)
}

// TestStudyRedaction: each case is a study as users write them; the study
// copy keeps every byte but the secrets, which are gone from it.
func TestStudyRedaction(t *testing.T) {
	for _, c := range []struct {
		name, study, want string
		ambiguous         int
	}{
		{"a common-word password", `configs:
  - name: pg17
    dsn: postgres://postgres:postgres@127.0.0.1:5432/postgres
    start: pg_ctl -D /var/lib/postgresql/17/main start
tests: [{name: t, sql: select 1}]
`, `configs:
  - name: pg17
    dsn: "postgres://postgres:********@127.0.0.1:5432/postgres"
    start: pg_ctl -D /var/lib/postgresql/17/main start
tests: [{name: t, sql: select 1}]
`, 1},
		{"sslpassword and a quoted password", `configs:
  - name: kv
    dsn: "host=db password='kv secret 12' sslpassword=Ssl-Pass-9911 user=x"
tests: [{name: t, sql: select 1}]
`, `configs:
  - name: kv
    dsn: "host=db password='********' sslpassword=******** user=x"
tests: [{name: t, sql: select 1}]
`, 0},
		{"a password escaped in YAML", `configs:
  - name: esc
    dsn: 'host=db password=it''s-a-Long-one user=x'
tests: [{name: t, sql: select 1}]
`, `configs:
  - name: esc
    dsn: "host=db password=******** user=x"
tests: [{name: t, sql: select 1}]
`, -1},
		{"a DSN commented out, one where a mapping goes, env and commands", `# old: postgres://bench:Old-Secret-77@db1/bench
configs:
  - name: a
    dsn: postgres://bench@db/bench
    start: {sh: 'PGPASSWORD=Start-Secret-1 pg_ctl start', env: {DATABASE_URL: "postgres://u:Url-Secret-2@h/d", MYSQL_PWD: Mysql-Secret-3, HOME_DIR: /home/x}}
    client: psql
    psql: psql 'postgresql://u:Psql-Secret-4@h/db' -X
tests: [{name: t, sql: select 1}]
probes:
  - name: api
    sh: "curl -H 'Authorization: Bearer Tok-Secret-5' --password=Flag-Secret-6 http://h/"
`, `# old: postgres://bench:********@db1/bench
configs:
  - name: a
    dsn: postgres://bench@db/bench
    start: {sh: "PGPASSWORD=******** pg_ctl start", env: {DATABASE_URL: "postgres://u:********@h/d", MYSQL_PWD: "********", HOME_DIR: /home/x}}
    client: psql
    psql: "psql 'postgresql://u:********@h/db' -X"
tests: [{name: t, sql: select 1}]
probes:
  - name: api
    sh: "curl -H 'Authorization: Bearer ********' --password=******** http://h/"
`, 0},
		{"an unescaped @ and / in a URL password", `configs:
  - name: at
    dsn: postgres://u:p@ss/w0rd-Long@db/bench
tests: [{name: t, sql: select 1}]
`, `configs:
  - name: at
    dsn: "postgres://u:********@db/bench"
tests: [{name: t, sql: select 1}]
`, -1},
		{"a block scalar", `configs:
  - name: b
    dsn: postgres://u@h/db
    start: |
      export PGPASSWORD=Block-Secret-8
      pg_ctl start
tests: [{name: t, sql: select 1}]
`, `configs:
  - name: b
    dsn: postgres://u@h/db
    start: "export PGPASSWORD=********\npg_ctl start\n"
tests: [{name: t, sql: select 1}]
`, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, r := redactorOf(t, c.study)
			got, err := r.Study(string(s.Text))
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("study copy:\n%s\nwant:\n%s", got, c.want)
			}
			if c.ambiguous >= 0 && r.Ambiguous() != c.ambiguous {
				t.Errorf("%d ambiguous secrets, want %d", r.Ambiguous(), c.ambiguous)
			}
			// The copy is still a study.
			if _, err := parseStudy("copy.yaml", []byte(got)); err != nil {
				t.Errorf("the copy does not parse: %v", err)
			}
		})
	}
}

// TestFreeText: output pgstudy did not write keeps every byte but the
// unambiguous secrets; a common or short one changes nothing.
func TestFreeText(t *testing.T) {
	_, r := redactorOf(t, `configs:
  - {name: a, dsn: "postgres://postgres:postgres@h/db"}
  - {name: b, dsn: "host=h password=1 user=u"}
  - {name: c, dsn: "postgres://u:p%40ss-w0rd!x@h/db"}
tests: [{name: t, sql: select 1}]
`)
	for in, want := range map[string]string{
		"data_directory=/var/lib/postgresql/17/main":   "data_directory=/var/lib/postgresql/17/main",
		"8 0 vda 1 2 3 4 5 6 7 8 9 10 11":              "8 0 vda 1 2 3 4 5 6 7 8 9 10 11",
		"echo p@ss-w0rd!x and p%40ss-w0rd!x, postgres": "echo ******** and ********, postgres",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if r.Ambiguous() != 2 {
		t.Errorf("%d ambiguous, want 2 (postgres and 1)", r.Ambiguous())
	}
}

// TestStructural: commands and errors lose their secrets where they stand.
func TestStructural(t *testing.T) {
	r := (*Redactor)(nil)
	for in, want := range map[string]string{
		"PGPASSWORD=pw pg_ctl start":                           "PGPASSWORD=******** pg_ctl start",
		"export API_TOKEN='a b'; run":                          "export API_TOKEN='********'; run",
		"sysbench --pgsql-password='x y' --threads=1":          "sysbench --pgsql-password='********' --threads=1",
		"psql -p 5432 -d db":                                   "psql -p 5432 -d db",
		"cd $PWD && PWD=/x ls":                                 "cd $PWD && PWD=/x ls",
		`expected a mapping, found "postgres://b:PW@h/db"`:     `expected a mapping, found "postgres://b:********@h/db"`,
		"host=h password=x'y user=u":                           "host=h password=******** user=u",
		"curl -H 'Authorization: Basic dXNlcjpwYXNz' http://h": "curl -H 'Authorization: Basic ********' http://h",
	} {
		if got := r.Structural(in); got != want {
			t.Errorf("Structural(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStudyErrorsHoldNoSecret: a DSN where a mapping goes is quoted in the
// error without its password.
func TestStudyErrorsHoldNoSecret(t *testing.T) {
	_, err := parseStudy("s.yaml", []byte("configs: [\"postgres://bench:Err-Secret-1@db/bench\"]\ntests: [{name: t, sql: select 1}]\n"))
	if err == nil || strings.Contains(err.Error(), "Err-Secret-1") {
		t.Errorf("error %v", err)
	}
}

// TestFreeTextOtherEncodings: a password with letters outside ASCII is
// masked as a client in LATIN1, WIN1252 or KOI8R prints it, not only as
// the study's UTF-8 (an attacker found it stored whole in raw_bytes).
func TestFreeTextOtherEncodings(t *testing.T) {
	_, r := redactorOf(t, `configs:
  - {name: a, dsn: "host=h user=u password=Zq7pässwörtX91"}
  - {name: b, dsn: "host=h user=u password=пароль-секрет"}
tests: [{name: t, sql: select 1}]
`)
	for in, want := range map[string]string{
		"pw=Zq7p\xe4ssw\xf6rtX91 end":                          "pw=******** end", // LATIN1, WIN1252
		"pw=Zq7pässwörtX91 end":                                "pw=******** end",
		"pw=\xd0\xc1\xd2\xcf\xcc\xd8-\xd3\xc5\xcb\xd2\xc5\xd4": "pw=********", // KOI8-R
		"caf\xe9 au lait":                                      "caf\xe9 au lait",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFreeTextMultiByte: a password is masked as PostgreSQL's multi-byte
// client encodings print it (an attacker found one in raw_bytes printed in
// SJIS, EUC_JP and GBK).
func TestFreeTextMultiByte(t *testing.T) {
	const pw = "パスワード秘密77"
	_, r := redactorOf(t, `configs:
  - {name: a, dsn: "host=h user=u password=`+pw+`"}
tests: [{name: t, sql: select 1}]
`)
	for name, enc := range map[string]encoding.Encoding{"SJIS": japanese.ShiftJIS, "EUC_JP": japanese.EUCJP, "GBK": simplifiedchinese.GBK, "GB18030": simplifiedchinese.GB18030} {
		b, err := enc.NewEncoder().String("pw=" + pw + ".")
		if err != nil {
			t.Fatal(err)
		}
		if got := r.String(b); got != "pw=********." {
			t.Errorf("%s: String(%q) = %q", name, b, got)
		}
	}
}

// TestStructuralShell: a flag's secret ends where the shell's next word
// does, and the password flags of curl, sshpass, redis-cli and mysql, and
// a first query parameter, are found (an attacker found each stored, and
// the flag rule swallowing "; echo after").
func TestStructuralShell(t *testing.T) {
	r := (*Redactor)(nil)
	for in, want := range map[string]string{
		"psql --password Zx9qLmP4vT9; echo after":  "psql --password ********; echo after",
		"mongo --password=Zx9qLmP4vTN&&echo x":     "mongo --password=********&&echo x",
		"pg_ctl --password=Zx9qLmP4vTR|cat":        "pg_ctl --password=********|cat",
		"curl -u admin:Pw0rd-Long https://x/":      "curl -u admin:******** https://x/",
		"sshpass -p Pw0rd-Long ssh db":             "sshpass -p ******** ssh db",
		"redis-cli -h r -a Pw0rd-Long ping":        "redis-cli -h r -a ******** ping",
		"mysql -u root -pPw0rd-Long -e 'select 1'": "mysql -u root -p******** -e 'select 1'",
		"curl 'https://x/?token=Pw0rd-Long'":       "curl 'https://x/?token=********'",
		"psql -p 5432 -U u -d db":                  "psql -p 5432 -U u -d db",
	} {
		if got := r.Structural(in); got != want {
			t.Errorf("Structural(%q) = %q, want %q", in, got, want)
		}
	}
}
