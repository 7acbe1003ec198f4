#!/usr/bin/env node
// Counts the rows of Parquet tables in a capture directory with DuckDB.
//
//   node scripts/duckdb-count.mjs CAPTURE_DIR TABLE...
//
// prints one line per table, "TABLE<TAB>COUNT", where COUNT is
//   select count(*) from read_parquet('CAPTURE_DIR/TABLE/*.parquet') t
//   where length(cast(t as varchar)) >= 0
// (every value read, so that text DuckDB cannot read fails), or 0 for a table folder that holds no part yet.
//
// @duckdb/node-api is loaded from the cache folder that scripts/install-deps
// fills (see duckdb-lib.mjs).
//
// Exits 1 with a message on stderr on any error (no such table folder, no
// Parquet files, unreadable file, ...); exits 2 on bad usage.

import fs from 'node:fs';
import path from 'node:path';
import { failer, loadDuckDB, sqlString } from './duckdb-lib.mjs';

const fail = failer('duckdb-count');

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

  const duckdb = loadDuckDB(fail);
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    for (const table of tables) {
      const glob = path.join(captureDir, table, '*.parquet');
      let names;
      try {
        names = fs.readdirSync(path.join(captureDir, table));
      } catch (err) {
        fail(1, `table ${table}: ${err.code || err.message}`);
      }
      // A table that has no part yet has no rows (DuckDB calls an empty
      // glob an error).
      if (!names.some((n) => n.endsWith('.parquet') && !n.startsWith('.'))) {
        process.stdout.write(`${table}\t0\n`);
        continue;
      }
      let n;
      try {
        // Every column of every row is read (cast to text), not only
        // counted: DuckDB checks a string's UTF-8 when it reads it, and
        // count(*) alone reads none.
        const reader = await conn.runAndReadAll(
          `select count(*) from read_parquet(${sqlString(glob)}) t where length(cast(t as varchar)) >= 0`);
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
