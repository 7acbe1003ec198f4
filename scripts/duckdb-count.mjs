#!/usr/bin/env node
// Counts the rows of Parquet tables in a capture directory with DuckDB.
//
//   node scripts/duckdb-count.mjs CAPTURE_DIR TABLE...
//
// prints one line per table, "TABLE<TAB>COUNT", where COUNT is
//   select count(*) from read_parquet('CAPTURE_DIR/TABLE/*.parquet')
//
// @duckdb/node-api is loaded from the cache folder that scripts/install-deps
// fills: $PGSTUDY_CACHE/duckdb, or ${XDG_CACHE_HOME:-$HOME/.cache}/pgstudy/duckdb
// when PGSTUDY_CACHE is unset. The package is CommonJS, so it is loaded with a
// require() created for that folder (createRequire resolves from
// <folder>/node_modules like a script living there would).
//
// Exits 1 with a message on stderr on any error (no such table folder, no
// Parquet files, unreadable file, ...); exits 2 on bad usage.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function fail(code, msg) {
  process.stderr.write(`duckdb-count: ${msg}\n`);
  process.exit(code);
}

function cacheDir() {
  if (process.env.PGSTUDY_CACHE) return process.env.PGSTUDY_CACHE;
  const base = process.env.XDG_CACHE_HOME || path.join(process.env.HOME || os.homedir(), '.cache');
  return path.join(base, 'pgstudy');
}

function loadDuckDB() {
  const dir = path.resolve(cacheDir(), 'duckdb');
  // The file name need not exist: it only anchors module resolution.
  const req = createRequire(path.join(dir, 'noop.js'));
  try {
    return req('@duckdb/node-api');
  } catch (err) {
    fail(1, `cannot load @duckdb/node-api from ${dir} (${err.message.split('\n')[0]}); run scripts/install-deps`);
  }
}

function sqlString(s) {
  return `'${s.replaceAll("'", "''")}'`;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length < 2 || args.includes('-h') || args.includes('--help')) {
    fail(2, 'usage: node scripts/duckdb-count.mjs CAPTURE_DIR TABLE...');
  }
  const [captureDir, ...tables] = args;
  let st;
  try {
    st = fs.statSync(captureDir);
  } catch (err) {
    fail(1, `capture directory ${captureDir}: ${err.code || err.message}`);
  }
  if (!st.isDirectory()) fail(1, `capture directory ${captureDir}: not a directory`);

  const duckdb = loadDuckDB();
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    for (const table of tables) {
      const glob = path.join(captureDir, table, '*.parquet');
      let n;
      try {
        const reader = await conn.runAndReadAll(`select count(*) from read_parquet(${sqlString(glob)})`);
        n = reader.getRows()[0][0];
      } catch (err) {
        fail(1, `table ${table}: ${err.message}`);
      }
      process.stdout.write(`${table}\t${n}\n`);
    }
  } finally {
    conn.closeSync?.();
    instance.closeSync?.();
  }
}

main().catch((err) => fail(1, err && err.stack ? err.stack : String(err)));
