package collect

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// libpqEnv turns a DSN into the PG* environment a psql client reads, so
// that a password never appears on a command line, where any user of the
// host can see it.
func libpqEnv(dsn string) (map[string]string, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse DSN: %s", redactErr(err, dsn))
	}
	env := map[string]string{
		"PGHOST":     cfg.Host,
		"PGPORT":     strconv.Itoa(int(cfg.Port)),
		"PGUSER":     cfg.User,
		"PGDATABASE": cfg.Database,
	}
	if cfg.Password != "" {
		env["PGPASSWORD"] = cfg.Password
	}
	if app := cfg.RuntimeParams["application_name"]; app != "" {
		env["PGAPPNAME"] = app
	}
	if mode := sslMode(dsn); mode != "" {
		env["PGSSLMODE"] = mode
	}
	return env, nil
}

var kvSSLMode = regexp.MustCompile(`(?:^|\s)sslmode\s*=\s*(\S+)`)

func sslMode(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			return u.Query().Get("sslmode")
		}
		return ""
	}
	if m := kvSSLMode.FindStringSubmatch(dsn); m != nil {
		return strings.Trim(m[1], "'")
	}
	return ""
}
