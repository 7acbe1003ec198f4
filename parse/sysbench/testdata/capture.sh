#!/usr/bin/env bash
# Regenerates the sysbench fixtures in this folder from real runs of Debian's
# sysbench 1.0 (its pgsql driver) against a throwaway PostgreSQL 15 server on
# 127.0.0.1.
#
# Usage: parse/sysbench/testdata/capture.sh
#
# Needs Debian's postgresql-15 (scripts/install-deps installs it) and
# sysbench, which this script installs with apt-get when it is missing. As
# root, the server runs as the OS user "postgres" through runuser, as
# PostgreSQL refuses to run as root. Each run's stdout goes to NAME.txt
# (sysbench writes its report and the --report-interval lines there).
# Then run `go test ./parse/sysbench -update` to rewrite the goldens.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
[[ -x $bin/postgres ]] || { echo "capture.sh: no PostgreSQL 15 in $bin; run scripts/install-deps" >&2; exit 1; }
if ! command -v sysbench >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y sysbench >/dev/null
fi

as_pg() {
	if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

dir=$(mktemp -d -t sysbench-capture.XXXXXX)
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

cd "$here"
db=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$port" --pgsql-user=postgres --pgsql-db=postgres)
sysbench "${db[@]}" oltp_read_only --tables=2 --table-size=10000 prepare >/dev/null

# run NAME ARGS...: one sysbench run, its stdout in NAME.txt.
run() {
	local name=$1
	shift
	echo "sysbench $*" >&2
	sysbench "${db[@]}" --tables=2 --table-size=10000 "$@" >"$name.txt"
}

run oltp-read-only oltp_read_only --time=5 --report-interval=1 run
run oltp-point-select oltp_point_select --time=5 --report-interval=1 run
run oltp-read-only-t4-p99 oltp_read_only --time=5 --report-interval=1 --threads=4 --percentile=99 run
run oltp-read-write-t4 oltp_read_write --time=5 --report-interval=1 --threads=4 run
