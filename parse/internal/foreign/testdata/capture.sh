#!/usr/bin/env bash
# Regenerates the fixtures of this folder: real output of PostgreSQL 15
# (Debian's postgresql-15, whose message catalogues are installed) with
# lc_messages and psql's locale in French, German and Russian. The locales
# are compiled into a temporary folder (localedef, LOCPATH), so the
# machine's own locales are not changed. Run as root or as the postgres user.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${PGBIN:-/usr/lib/postgresql/15/bin}
work=$(mktemp -d)
trap 'runuser -u postgres -- "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
chmod 755 "$work"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- env "$@"; else env "$@"; fi; }

mkdir -p "$work/locale"
for l in fr_FR de_DE ru_RU; do
  localedef -i "$l" -f UTF-8 "$work/locale/$l.UTF-8" 2>/dev/null || localedef -i "$l" -f UTF-8 "$work/locale/$l.UTF-8" || true
done
chown -R postgres "$work" 2>/dev/null || true
export LOCPATH=$work/locale

as_pg LOCPATH="$LOCPATH" "$bin/initdb" -D "$work/data" -U postgres --locale=C.UTF-8 >/dev/null 2>&1
cat >>"$work/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = ${PGPORT:-54329}
unix_socket_directories = ''
log_autovacuum_min_duration = 0
autovacuum_naptime = 1
lc_messages = 'C'
CONF

for lang in fr de ru; do
  loc=${lang}_$(echo "$lang" | tr a-z A-Z).UTF-8
  sed -i "s/^lc_messages = .*/lc_messages = '$loc'/" "$work/data/postgresql.conf"
  as_pg LOCPATH="$LOCPATH" "$bin/pg_ctl" -D "$work/data" -l "$work/$lang.log" -w start >/dev/null
  psql() { as_pg LOCPATH="$LOCPATH" LC_ALL="$loc" "$bin/psql" -X -h 127.0.0.1 -p "${PGPORT:-54329}" -U postgres -d postgres "$@"; }
  psql -q -c "drop table if exists t" -c "create table t (id int primary key, k int) with (autovacuum_vacuum_threshold = 100, autovacuum_vacuum_scale_factor = 0)" \
    -c "insert into t select g, g from generate_series(1, 10000) g" 2>/dev/null ||
  psql -q -c "drop table if exists t" -c "create table t (id int primary key, k int) with (autovacuum_vacuum_threshold = 100, autovacuum_vacuum_scale_factor = 0)" \
    -c "insert into t select g, g from generate_series(1, 10000) g"
  # VACUUM VERBOSE as psql -e prints it, stdout and stderr in one stream,
  # then an error, as a user's script would meet one.
  printf '\\timing on\nVACUUM (VERBOSE) t;\nselect 1/0;\n' | psql -e >"$here/pg15-$lang.vacuum.psql.txt" 2>&1 || true
  psql -q -c "delete from t where id % 3 = 0"
  for _ in $(seq 60); do grep -q 'VACUUM\|vacuum\|ОЧИСТКА\|очистка' "$work/$lang.log" && break; sleep 1; done
  sleep 1
  as_pg "$bin/pg_ctl" -D "$work/data" -w stop >/dev/null
  cp "$work/$lang.log" "$here/pg15-$lang.autovacuum.log"
  chmod 644 "$here/pg15-$lang.autovacuum.log"
done

# psql output in LATIN1 (client_encoding), messages in English: the bytes
# of the result "café crème" are not UTF-8.
sed -i "s/^lc_messages = .*/lc_messages = 'C'/" "$work/data/postgresql.conf"
as_pg LOCPATH="$LOCPATH" "$bin/pg_ctl" -D "$work/data" -l "$work/c.log" -w start >/dev/null
printf '\\timing on\nselect %s as dish;\n' "'caf' || chr(233) || ' cr' || chr(232) || 'me'" |
  as_pg PGCLIENTENCODING=LATIN1 LC_ALL=C "$bin/psql" -X -e -h 127.0.0.1 -p "${PGPORT:-54329}" -U postgres -d postgres \
  >"$here/pg15-latin1.psql.txt" 2>&1
as_pg "$bin/pg_ctl" -D "$work/data" -w stop >/dev/null
echo "wrote $(ls "$here" | grep -c 'pg15-') files in $here"
