package collect

import (
	"errors"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/pgstudy/pgstudy/samples/study"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/jackc/pgx/v5/pgconn"
)

// Redactor keeps secrets out of everything pgstudy stores or prints. It
// works in two ways, because raw output is sacred:
//
//  1. By structure, where a secret stands: a DSN's password (URL userinfo,
//     password= and sslpassword=, in both forms), a variable with a
//     secret-like name (NAME=value in a command line, NAME: value in YAML,
//     a step's env), a flag such as --password=X, an Authorization header.
//     Commands, DSNs, the study copy and pgstudy's own messages are
//     rewritten there, and only there (Structural, Study).
//  2. In free text pgstudy did not write (a step's output, a server's
//     error), a secret is masked only where it is long and unusual enough
//     that the match cannot be an ordinary word (String). A short or
//     common one (the password "postgres") is left alone there, and
//     Ambiguous says so, to be warned about once.
type Redactor struct {
	masked    []string // unambiguous secrets and their escaped forms, longest first
	ambiguous int      // secrets too short or too common to mask in free text
}

// mask replaces a secret.
const mask = "********"

// yamlMask replaces a secret that is a whole YAML scalar: a plain scalar
// cannot begin with *, YAML's alias indicator.
const yamlMask = "'" + mask + "'"

// secretName matches the names of variables, keys and flags that hold a
// secret (PGPASSWORD, API_TOKEN, MYSQL_PWD, DATABASE_URL, --pgsql-password).
var secretName = regexp.MustCompile(`(?i)pass|pwd|secret|token|credential|[a-z0-9][_-]?key($|[_-])|auth`)

// notSecret are names secretName matches that hold no secret.
var notSecret = []string{"PWD", "OLDPWD", "pwd"}

func isSecretName(name string) bool {
	return secretName.MatchString(name) && !slices.Contains(notSecret, name)
}

// minUnambiguous is the shortest secret masked in free text.
const minUnambiguous = 8

// commonWords are secrets too common to mask in free text whatever their
// length: they are words of PostgreSQL's and of the machine's.
var commonWords = []string{"postgres", "postgresql", "password", "passw0rd", "administrator", "changeme", "12345678", "123456789",
	"qwertyuiop", "superuser", "database", "localhost", "benchmark", "pgbench", "sysbench", "replication"}

// The structural rules: each matches a secret where it stands; group
// "v" is the secret.
var (
	// scheme://user:SECRET@ : to the last @ of the word, so that an
	// unescaped @ or / in the password is inside the match.
	urlUserinfo = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@'"]*:(?P<v>\S*)@`)
	// ?password=SECRET and &sslpassword=SECRET in a URL's query.
	urlQuery = regexp.MustCompile(`(?i)[?&](?:ssl)?password=(?P<v>[^&\s'"#]*)`)
	// password=SECRET and sslpassword='SECRET' in a key=value DSN.
	kvPassword = regexp.MustCompile(`(?i)(?:^|[\s'"])(?:ssl)?password\s*=\s*(?P<v>'(?:[^'\\]|\\.)*'|(?:[^\s\\]|\\.)+)`)
	// NAME=SECRET, with a secret-like NAME, in a command line.
	assignment = regexp.MustCompile(`(?:^|[\s;&|(?])(?P<n>[A-Za-z_][A-Za-z0-9_]*)=(?P<v>'[^']*'|"(?:[^"\\]|\\.)*"|[^\s;&|)'"]*)`)
	// --NAME=SECRET or --NAME SECRET, with a secret-like NAME.
	// The value ends where the shell's next word does (";", "&", "|",
	// ")"), which is not the secret's.
	secretFlag = regexp.MustCompile(`(?:^|\s)--?(?P<n>[A-Za-z][A-Za-z0-9_-]*)(?:=|\s+)(?P<v>'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"\-;&|)][^\s'";&|)]*)`)
	// curl -u USER:SECRET, --user=USER:SECRET.
	userFlag = regexp.MustCompile(`(?:^|\s)(?:-u|--user)(?:=|\s+)['"]?[^\s:'"]+:(?P<v>[^\s'";&|)]+)`)
	// Tools whose password flag is a short one that means other things
	// elsewhere (psql -p is a port): sshpass -p SECRET, redis-cli -a
	// SECRET, mysql -pSECRET.
	toolFlag = regexp.MustCompile(`(?:sshpass\s+-p\s*|redis-cli\b[^;&|\n]*?\s-a\s+|mysql(?:dump|admin)?\b[^;&|\n]*?\s-p)(?P<v>[^\s'";&|)]+)`)
	// Authorization: Bearer SECRET
	authHeader = regexp.MustCompile(`(?i)authorization:\s*(?:(?:bearer|basic|token|digest)\s+)?(?P<v>[^\s'"]+)`)
)

// structuralRule is a pattern and whether its name group must be
// secret-like.
type structuralRule struct {
	re    *regexp.Regexp
	named bool
	yaml  bool // the secret is a whole YAML scalar: replaced by yamlMask
}

var textRules = []structuralRule{{urlUserinfo, false, false}, {urlQuery, false, false}, {kvPassword, false, false},
	{assignment, true, false}, {secretFlag, true, false}, {userFlag, false, false}, {toolFlag, false, false}, {authHeader, false, false}}

// findSecrets returns each secret the rules find in s, as [start, end)
// byte offsets, and whether it is a whole YAML scalar.
func findSecrets(s string, rules []structuralRule) [][3]int {
	var spans [][3]int
	for _, r := range rules {
		vi, ni := r.re.SubexpIndex("v"), r.re.SubexpIndex("n")
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			if m[2*vi] < 0 || m[2*vi] == m[2*vi+1] {
				continue
			}
			if r.named && !isSecretName(s[m[2*ni]:m[2*ni+1]]) {
				continue
			}
			// An unquoted secret inside a quoted word ('password=x')
			// ends before the closing quote.
			end := m[2*vi+1]
			if c := s[m[2*vi]]; c != '\'' && c != '"' {
				for end > m[2*vi]+1 && (s[end-1] == '\'' || s[end-1] == '"') {
					end--
				}
			}
			m[2*vi+1] = end
			whole := 0
			if r.yaml {
				whole = 1
			}
			spans = append(spans, [3]int{m[2*vi], m[2*vi+1], whole})
		}
	}
	return spans
}

// replaceSpans masks the spans of s, the outermost of overlapping ones.
func replaceSpans(s string, spans [][3]int) string {
	slices.SortFunc(spans, func(a, b [3]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return b[1] - a[1]
	})
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		if sp[0] < at {
			continue // inside one already masked
		}
		b.WriteString(s[at:sp[0]])
		val := s[sp[0]:sp[1]]
		switch {
		case sp[2] == 1:
			b.WriteString(yamlMask)
		case strings.HasPrefix(val, "'") && strings.HasSuffix(val, "'") && len(val) >= 2:
			b.WriteString("'" + mask + "'")
		case strings.HasPrefix(val, `"`) && strings.HasSuffix(val, `"`) && len(val) >= 2:
			b.WriteString(`"` + mask + `"`)
		default:
			b.WriteString(mask)
		}
		at = sp[1]
	}
	b.WriteString(s[at:])
	return b.String()
}

// unquote is a secret as its owner typed it, without shell or DSN quotes.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return v
}

// Structural removes the secrets of a command line, a DSN or a message of
// pgstudy's own where they stand (see Redactor), and nothing else.
func (r *Redactor) Structural(s string) string {
	return replaceSpans(s, findSecrets(s, textRules))
}

// NewRedactor gathers the study's secrets: passwords of every DSN (after
// the PG* environment and the password file are applied), PGPASSWORD, the
// values of secret-named variables of steps and probes, and what the
// structural rules find in every command and in the study's text.
func NewRedactor(s *study.Study) *Redactor {
	var secrets []string
	add := func(v string) {
		if v = unquote(v); v != "" && v != mask && !slices.Contains(secrets, v) {
			secrets = append(secrets, v)
		}
	}
	from := func(text string, rules []structuralRule) {
		for _, sp := range findSecrets(text, rules) {
			add(text[sp[0]:sp[1]])
		}
	}
	// pgstudy's own environment passes to every step: its secret-named
	// variables (PGPASSWORD, MY_TOKEN) may be printed by one.
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && isSecretName(k) {
			add(v)
		}
	}
	env := func(m map[string]string) {
		for k, v := range m {
			if isSecretName(k) {
				add(v)
			}
			from(v, textRules)
		}
	}
	for _, c := range s.Configs {
		for _, p := range dsnPasswords(c.DSN) {
			add(p)
		}
		from(c.Psql, textRules)
		for _, sh := range []*study.Shell{c.Start, c.Stop} {
			if sh != nil {
				from(sh.Sh, textRules)
				env(sh.Env)
			}
		}
	}
	for _, st := range s.Protocol.Cold {
		if st.Shell != nil {
			from(st.Shell.Sh, textRules)
			env(st.Shell.Env)
		}
	}
	for _, p := range s.Probes {
		from(p.Sh, textRules)
		env(p.Env)
	}
	for _, t := range s.Tests {
		from(t.Pgbench, textRules)
		from(t.Sysbench, textRules)
	}
	r := &Redactor{}
	redacted, err := r.Study(string(s.Text))
	if err != nil {
		redacted = string(s.Text) // Collect refuses it; no secret is masked in free text
	}
	for _, v := range studySecrets(s.Text) {
		add(v)
	}
	for _, sec := range secrets {
		r.classify(sec, redacted)
	}
	return r
}

// classify puts a secret among the masked ones when it is unambiguous: long
// enough, not a common word, and found in the study only where it is a
// secret (once those places are masked, the study's text no longer has it).
func (r *Redactor) classify(sec, redactedStudy string) {
	if len(sec) < minUnambiguous || slices.Contains(commonWords, strings.ToLower(sec)) || strings.Contains(redactedStudy, sec) {
		r.ambiguous++
		return
	}
	forms := append([]string{sec, url.QueryEscape(sec), url.PathEscape(sec), url.UserPassword("u", sec).String()[2:]}, encodedForms(sec)...)
	for _, v := range forms {
		if v != "" && !slices.Contains(r.masked, v) {
			r.masked = append(r.masked, v)
		}
	}
	// Longest first, so that an escaped form is masked whole.
	slices.SortFunc(r.masked, func(a, b string) int { return len(b) - len(a) })
}

// singleByte are the encodings of PostgreSQL's single-byte client
// encodings (LATIN1 to LATIN10, WIN1250 to WIN1258, WIN866, WIN874, KOI8R,
// KOI8U, ISO_8859_5 to 8): a client set to one of them prints a secret of
// letters outside ASCII as other bytes than the study's UTF-8.
var singleByte = []*charmap.Charmap{
	charmap.ISO8859_1, charmap.ISO8859_2, charmap.ISO8859_3, charmap.ISO8859_4, charmap.ISO8859_5,
	charmap.ISO8859_6, charmap.ISO8859_7, charmap.ISO8859_8, charmap.ISO8859_9, charmap.ISO8859_10,
	charmap.ISO8859_13, charmap.ISO8859_14, charmap.ISO8859_15, charmap.ISO8859_16,
	charmap.Windows1250, charmap.Windows1251, charmap.Windows1252, charmap.Windows1253, charmap.Windows1254,
	charmap.Windows1255, charmap.Windows1256, charmap.Windows1257, charmap.Windows1258,
	charmap.CodePage866, charmap.Windows874, charmap.KOI8R, charmap.KOI8U,
}

// multiByte are the encodings of PostgreSQL's multi-byte client encodings
// that x/text has: SJIS, EUC_JP, EUC_KR (and UHC, its superset), GBK, GB18030,
// EUC_CN (GB2312, within GBK), BIG5.
var multiByte = []encoding.Encoding{
	japanese.ShiftJIS, japanese.EUCJP, korean.EUCKR, simplifiedchinese.GBK,
	simplifiedchinese.GB18030, traditionalchinese.Big5,
}

// encodedForms are sec as each client encoding that can hold it writes it,
// when it has letters outside ASCII.
func encodedForms(sec string) []string {
	ascii := true
	for i := range len(sec) {
		ascii = ascii && sec[i] < 0x80
	}
	if ascii {
		return nil
	}
	var forms []string
	add := func(e encoding.Encoding) {
		if b, err := e.NewEncoder().String(sec); err == nil && b != sec && !slices.Contains(forms, b) {
			forms = append(forms, b)
		}
	}
	for _, cm := range singleByte {
		add(cm)
	}
	for _, e := range multiByte {
		add(e)
	}
	return forms
}

// Ambiguous is the number of secrets too short or too common to be masked
// in free text: they are removed from commands, DSNs and the study copy,
// but a step or server that prints one has it stored.
func (r *Redactor) Ambiguous() int {
	if r == nil {
		return 0
	}
	return r.ambiguous
}

// String masks, in free text, the secrets that cannot be confused with
// anything else; every other byte is kept.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.masked {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, mask)
		}
	}
	return s
}

// Error returns err with its secrets removed: where they stand, and the
// unambiguous ones anywhere.
func (r *Redactor) Error(err error) error {
	if err == nil || r == nil {
		return err
	}
	if msg := r.Text(err.Error()); msg != err.Error() {
		return redactedError{msg: msg, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// dsnPasswords is every password a DSN leads to: the one written in it and
// the one the environment or password file supplies.
func dsnPasswords(dsn string) []string {
	var out []string
	if cfg, err := pgconn.ParseConfig(dsn); err == nil {
		out = append(out, cfg.Password)
		if v, ok := cfg.RuntimeParams["sslpassword"]; ok {
			out = append(out, v)
		}
	}
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
		out = append(out, u.Query().Get("password"), u.Query().Get("sslpassword"))
	}
	for _, sp := range findSecrets(dsn, textRules) {
		out = append(out, unquote(dsn[sp[0]:sp[1]]))
	}
	return out
}

// redactErr hides a DSN's secrets in an error about that DSN, before a
// Redactor exists.
func redactErr(err error, dsn string) string {
	r := &Redactor{}
	for _, p := range dsnPasswords(dsn) {
		r.classify(p, "")
	}
	msg := err.Error()
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		msg = pe.Error()
	}
	return r.Text(msg)
}

// Text removes secrets from a message pgstudy prints or stores of its own
// (a progress line, a run's error): where they stand, and the unambiguous
// ones anywhere.
func (r *Redactor) Text(s string) string {
	if r == nil {
		return s
	}
	return r.String(r.Structural(s))
}
