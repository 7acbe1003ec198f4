#!/usr/bin/env bash
# Regenerates the pgbench fixtures in this folder from real runs of Debian's
# postgresql-15 pgbench against a throwaway PostgreSQL 15 server on 127.0.0.1.
#
# Usage: parse/pgbench/testdata/capture.sh
#
# Needs Debian's postgresql-15 (scripts/install-deps installs it). As root,
# the server runs as the OS user "postgres" through runuser, as PostgreSQL
# refuses to run as root. Each run writes its stdout to NAME.stdout.txt and
# its stderr to NAME.stderr.txt (the collector records the two streams
# apart), and for the first run also both streams through one pipe
# (NAME.combined.txt, as `pgbench ... 2>&1 | tee log` would keep them).
# Then run `go test ./parse/pgbench -update` to rewrite the goldens.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
pgbench=$bin/pgbench
[[ -x $bin/postgres && -x $pgbench ]] || { echo "capture.sh: no PostgreSQL 15 in $bin; run scripts/install-deps" >&2; exit 1; }

as_pg() {
	if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

dir=$(mktemp -d -t pgbench-capture.XXXXXX)
chmod 755 "$dir"
[[ $(id -u) == 0 ]] && chown postgres: "$dir"
cleanup() {
	as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT

as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
started=false
for _ in 1 2 3 4 5; do
	port=$((20000 + RANDOM % 30000))
	cat >>"$dir/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
CONF
	if as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null; then
		started=true
		break
	fi
done
$started || { cat "$dir/server.log" >&2; exit 1; }

export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres PGSSLMODE=disable
cd "$here"

# run NAME ARGS...: one pgbench run, its two streams in two files.
run() {
	local name=$1
	shift
	echo "pgbench $*" >&2
	"$pgbench" "$@" >"$name.stdout.txt" 2>"$name.stderr.txt"
}

# What pgbench -i prints (to stderr; stdout stays empty, so is not kept), as a log of a
# whole study holds it before the runs: at scale 20 without -q, a line each
# 100,000 rows; then -q's lines, and an initialisation and a run through
# one pipe. The runs below use scale 2.
"$pgbench" -i -s 20 >/dev/null 2>init.stderr.txt
"$pgbench" -i -s 2 -q >/dev/null 2>init-quiet.stderr.txt
{ "$pgbench" -i -s 2; "$pgbench" -S -P 1 -T 2; } >init-then-run.combined.txt 2>&1

run select-only -S -P 1 -T 5
"$pgbench" -S -P 1 -T 5 >select-only.combined.txt 2>&1
run tpcb -P 1 -T 5
run tpcb-r -r -P 1 -T 5
run tpcb-c4-j2 -c 4 -j 2 -P 1 -T 5
# custom.sql is beside this script; pgbench names it as given, so the
# fixture says "transaction type: custom.sql".
run custom-script -f custom.sql -r -P 1 -T 5 -c 2
run transactions -S -t 1000 -c 2 -M prepared
run rate-limit -R 300 -L 2 -P 1 -T 5 -c 2
run multi-script -b select-only@2 -b simple-update@1 -r -P 1 -T 5 -c 2 --max-tries=2 --failures-detailed
run connect -C -S -T 3
