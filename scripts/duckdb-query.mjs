#!/usr/bin/env node
// Runs one SQL query with DuckDB in a folder and prints its result as JSON:
// {"columns": [{"name", "type"}...], "rows": [[...], ...]}, numbers as
// JSON numbers (DuckDB's BIGINT and HUGEINT as numbers too), lists as
// arrays.
//
//   node scripts/duckdb-query.mjs DIR 'SQL'
//
// The tests run the DuckDB one-liners of docs/EXPORT.md with it, in a
// folder holding pgstudy's export, and compare what DuckDB read with
// pgstudy's own numbers. @duckdb/node-api is loaded from the cache folder
// scripts/install-deps fills (see duckdb-lib.mjs).
//
// Exits 1 with a message on stderr on any error; 2 on bad usage.

import { failer, loadDuckDB } from './duckdb-lib.mjs';

const fail = failer('duckdb-query');

function plain(v) {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object' && 'items' in v) return v.items.map(plain); // a LIST value
  return v;
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length !== 2) fail(2, "usage: node scripts/duckdb-query.mjs DIR 'SQL'");
  const [dir, sql] = args;
  process.chdir(dir);
  const duckdb = loadDuckDB(fail);
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  let reader;
  try {
    reader = await conn.runAndReadAll(sql);
  } catch (err) {
    fail(1, err.message);
  }
  const names = reader.columnNames();
  const types = reader.columnTypes().map((t) => t.toString());
  const rows = reader.getRows().map((r) => r.map(plain));
  process.stdout.write(JSON.stringify({ columns: names.map((n, i) => ({ name: n, type: types[i] })), rows }) + '\n');
}

main().catch((err) => fail(1, err.stack || String(err)));
