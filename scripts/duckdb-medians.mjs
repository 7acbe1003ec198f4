#!/usr/bin/env node
// Computes, with DuckDB, the per-(test, configuration) medians that
// `pgstudy analyze` reports from a capture's runs table, and optionally
// compares them with pgstudy's.
//
//   node scripts/duckdb-medians.mjs CAPTURE_DIR [PGSTUDY_JSON]
//
// The query, over CAPTURE_DIR/runs/*.parquet, is
//
//   select test, config, count(*) as n,
//          median(elapsed_ns / 1e6) as median_ms,
//          median((wal_insert_pos_after - wal_insert_pos_before)::double) as median_wal_bytes
//   from read_parquet(...) where status = 'ok' and client <> 'psql'
//   group by test, config
//
// which is what pgstudy's timings table (the pgx client's elapsed time; a
// psql run's time comes from its Time: line, which DuckDB cannot read) and
// WAL table hold. Disk figures are not compared: they come from the
// /proc/diskstats text, which DuckDB does not parse.
//
// Prints one line per group, "test<TAB>config<TAB>n<TAB>median_ms<TAB>
// median_wal_bytes", and on stderr "duckdb-medians: query S s" (the query's
// own time, without starting node and loading DuckDB).
//
// With PGSTUDY_JSON (the output of `pgstudy analyze CAPTURE_DIR --format
// json`) it also prints both medians side by side and exits 1 when a group
// is missing on either side, a count differs, or a median differs by more
// than 1e-9 relative (the export's keys: median_ms, and wal_bytes of the
// WAL table's wal_insert_lsn rows).
//
// @duckdb/node-api is loaded from the cache folder scripts/install-deps
// fills (see duckdb-lib.mjs).
//
// Exits 2 on bad usage.

import fs from 'node:fs';
import path from 'node:path';
import { failer, loadDuckDB, sqlString } from './duckdb-lib.mjs';

const fail = failer('duckdb-medians');

const relTol = 1e-9;

function close(a, b) {
  if (a === b) return true;
  return Math.abs(a - b) <= relTol * Math.max(Math.abs(a), Math.abs(b));
}

// pgstudyMedians reads the timings and wal tables of pgstudy's JSON output.
function pgstudyMedians(file) {
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    fail(1, `${file}: ${err.message}`);
  }
  const table = (name) => {
    const t = (doc.tables || []).find((t) => t.name === name);
    if (!t) fail(1, `${file}: no ${name} table`);
    return t.rows;
  };
  const out = new Map();
  for (const r of table('timings')) {
    if ((doc.captures || []).length !== 1) fail(1, `${file}: several captures; give one`);
    out.set(`${r.test}\t${r.config}`, { n: r.n, ms: r.median_ms, wal: null });
  }
  for (const r of table('wal')) {
    const g = out.get(`${r.test}\t${r.config}`);
    // The WAL insert position's difference over the run: what the runs'
    // wal_insert_pos_after - wal_insert_pos_before hold.
    if (g && r.source === 'wal_insert_lsn') g.wal = r.wal_bytes;
  }
  return out;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 1 || args.length > 2 || args.includes('-h') || args.includes('--help')) {
    fail(2, 'usage: node scripts/duckdb-medians.mjs CAPTURE_DIR [PGSTUDY_JSON]');
  }
  const [captureDir, pgJSON] = args;
  if (!fs.existsSync(path.join(captureDir, 'runs'))) fail(1, `${captureDir}: no runs folder; not a capture`);

  const duckdb = loadDuckDB(fail);
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const glob = path.join(captureDir, 'runs', '*.parquet');
  const sql = `select test, config, count(*) as n,
      median(elapsed_ns / 1e6) as median_ms,
      median((wal_insert_pos_after - wal_insert_pos_before)::double) as median_wal_bytes
    from read_parquet(${sqlString(glob)})
    where status = 'ok' and client <> 'psql'
    group by test, config order by test, config`;
  const t0 = process.hrtime.bigint();
  let rows;
  try {
    rows = (await conn.runAndReadAll(sql)).getRows();
  } catch (err) {
    fail(1, `query: ${err.message}`);
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  conn.closeSync?.();
  instance.closeSync?.();
  process.stderr.write(`duckdb-medians: query ${secs.toFixed(3)} s\n`);

  const duck = new Map();
  for (const [test, config, n, ms, wal] of rows) {
    duck.set(`${test}\t${config}`, { n: Number(n), ms: Number(ms), wal: wal === null ? null : Number(wal) });
    if (!pgJSON) process.stdout.write(`${test}\t${config}\t${n}\t${ms}\t${wal}\n`);
  }
  if (!pgJSON) return;

  const pg = pgstudyMedians(pgJSON);
  const keys = [...new Set([...duck.keys(), ...pg.keys()])].sort();
  let bad = 0;
  const pad = (s, w) => String(s).padEnd(w);
  process.stdout.write(`${pad('test', 10)} ${pad('config', 11)} ${pad('n', 6)} ${pad('median ms: pgstudy', 20)} ${pad('duckdb', 20)} ${pad('WAL bytes: pgstudy', 20)} ${pad('duckdb', 14)} ok\n`);
  for (const k of keys) {
    const d = duck.get(k), p = pg.get(k);
    const [test, config] = k.split('\t');
    let ok = d !== undefined && p !== undefined && d.n === p.n && close(d.ms, p.ms);
    if (ok && (d.wal !== null || p.wal !== null)) ok = d.wal !== null && p.wal !== null && close(d.wal, p.wal);
    if (!ok) bad++;
    process.stdout.write(`${pad(test, 10)} ${pad(config, 11)} ${pad(d ? d.n : '-', 6)} ${pad(p ? p.ms : '-', 20)} ${pad(d ? d.ms : '-', 20)} ${pad(p ? p.wal : '-', 20)} ${pad(d ? d.wal : '-', 14)} ${ok ? 'yes' : 'NO'}\n`);
  }
  if (bad > 0) fail(1, `${bad} of ${keys.length} groups differ (relative tolerance ${relTol})`);
  process.stdout.write(`all ${keys.length} groups agree within ${relTol} relative\n`);
}

main().catch((err) => fail(1, err && err.stack ? err.stack : String(err)));
