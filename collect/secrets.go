package collect

import (
	"errors"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Redactor removes secrets from everything pgstudy writes: the capture,
// the log, error messages. It works on the secret values themselves, not
// on where they are expected, so that a password a step echoes, or one a
// server puts in an error, is caught as well as the one in a DSN.
type Redactor struct {
	secrets []string
}

// Mask replaces a secret.
const Mask = "********"

var secretName = regexp.MustCompile(`(?i)pass|secret|token|credential|(^|_)key($|_)|auth`)

// NewRedactor gathers the study's secrets: passwords of every DSN (after
// the PG* environment and the password file are applied), PGPASSWORD, and
// the values of environment variables with a secret-like name in steps
// and probes.
func NewRedactor(s *Study) *Redactor {
	r := &Redactor{}
	r.Add(os.Getenv("PGPASSWORD"))
	for _, c := range s.Configs {
		for _, p := range dsnPasswords(c.DSN) {
			r.Add(p)
		}
		for _, sh := range []*Shell{c.Start, c.Stop} {
			if sh != nil {
				r.addEnv(sh.Env)
			}
		}
	}
	for _, st := range s.Protocol.Cold {
		if st.Shell != nil {
			r.addEnv(st.Shell.Env)
		}
	}
	for _, p := range s.Probes {
		r.addEnv(p.Env)
	}
	return r
}

func (r *Redactor) addEnv(env map[string]string) {
	for k, v := range env {
		if secretName.MatchString(k) {
			r.Add(v)
		}
	}
}

// Add makes a value secret, with its URL-escaped forms.
func (r *Redactor) Add(secret string) {
	if r == nil || secret == "" {
		return
	}
	for _, v := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), url.UserPassword("u", secret).String()[2:]} {
		if v != "" && !slices.Contains(r.secrets, v) {
			r.secrets = append(r.secrets, v)
		}
	}
	// Longest first, so that an escaped form is masked whole.
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
}

// Short reports whether a secret is so short that masking it may change
// recorded text that merely contains the same letters.
func (r *Redactor) Short() bool {
	for _, s := range r.secrets {
		if len(s) < 6 {
			return true
		}
	}
	return false
}

// String removes every secret from s.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Mask)
		}
	}
	return s
}

// Error returns err with secrets removed from its text.
func (r *Redactor) Error(err error) error {
	if err == nil || r == nil {
		return err
	}
	if msg := r.String(err.Error()); msg != err.Error() {
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
	}
	if u, err := url.Parse(dsn); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
		out = append(out, u.Query().Get("password"))
	}
	if m := urlPassword.FindStringSubmatch(dsn); m != nil {
		out = append(out, m[1]) // as written, escaped or not
	}
	for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
		out = append(out, strings.Trim(m[1], "'"))
	}
	return out
}

var urlPassword = regexp.MustCompile(`^[A-Za-z]+://[^:@/]*:([^@/]+)@`)

var kvPassword = regexp.MustCompile(`(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

// redactErr hides a DSN's password in an error about that DSN, before a
// Redactor exists.
func redactErr(err error, dsn string) string {
	r := &Redactor{}
	for _, p := range dsnPasswords(dsn) {
		r.Add(p)
	}
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		return r.String(pe.Error())
	}
	return r.String(err.Error())
}
