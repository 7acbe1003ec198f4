#!/usr/bin/env bash
# Regenerates foreign-*.csv and foreign-*.json of this folder: the csvlog
# and jsonlog of real PostgreSQL 15 (Debian's postgresql-15, whose message
# catalogues are installed) with lc_messages in French and German, holding
# an autovacuum entry of a table t, which pgstudy must refuse naming
# lc_messages. The locales are compiled into a temporary folder (localedef,
# LOCPATH), so the machine's own locales are not changed. The Unix socket
# is off; nothing is rewritten. Run as root or as the postgres user.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${PGBIN:-/usr/lib/postgresql/15/bin}
port=${PGPORT:-54331}
work=$(mktemp -d)
trap 'runuser -u postgres -- "$bin/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
chmod 755 "$work"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- env "$@"; else env "$@"; fi; }

mkdir -p "$work/locale"
for l in fr_FR de_DE; do
  localedef -i "$l" -f UTF-8 "$work/locale/$l.UTF-8" 2>/dev/null || true
done
chown -R postgres "$work" 2>/dev/null || true
export LOCPATH=$work/locale

as_pg LOCPATH="$LOCPATH" "$bin/initdb" -D "$work/data" -U postgres --locale=C.UTF-8 >/dev/null 2>&1
cat >>"$work/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
log_autovacuum_min_duration = 0
autovacuum_naptime = 1
logging_collector = on
log_destination = 'csvlog,jsonlog'
log_directory = 'log'
log_filename = 'postgresql.log'
log_timezone = 'UTC'
lc_messages = 'C'
CONF

for lang in fr de; do
  loc=${lang}_$(echo "$lang" | tr a-z A-Z).UTF-8
  sed -i "s/^lc_messages = .*/lc_messages = '$loc'/" "$work/data/postgresql.conf"
  rm -rf "$work/data/log"
  as_pg LOCPATH="$LOCPATH" "$bin/pg_ctl" -D "$work/data" -l "$work/$lang.stderr" -w start >/dev/null
  psql() { as_pg LOCPATH="$LOCPATH" LC_ALL=C "$bin/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"; }
  psql -c "drop table if exists t" \
    -c "create table t (id int primary key, k int) with (autovacuum_vacuum_threshold = 100, autovacuum_vacuum_scale_factor = 0)" \
    -c "insert into t select g, g from generate_series(1, 10000) g"
  psql -c "delete from t where id % 3 = 0"
  for _ in $(seq 60); do grep -q 'pg_toast\|public.t' "$work/data/log/postgresql.json" 2>/dev/null && grep -qi 'vacuum' "$work/data/log/postgresql.json" && break; sleep 1; done
  sleep 2
  as_pg "$bin/pg_ctl" -D "$work/data" -w stop >/dev/null
  cp "$work/data/log/postgresql.csv" "$here/foreign-$lang.csv"
  cp "$work/data/log/postgresql.json" "$here/foreign-$lang.json"
  chmod 644 "$here/foreign-$lang".*
done
echo "wrote $(ls "$here" | grep -c '^foreign-') files in $here"
