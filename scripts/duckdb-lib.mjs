// What the DuckDB scripts share: loading @duckdb/node-api from the cache
// folder that scripts/install-deps fills ($PGSTUDY_CACHE/duckdb, or
// ${XDG_CACHE_HOME:-$HOME/.cache}/pgstudy/duckdb when PGSTUDY_CACHE is
// unset), failing with a message, and quoting SQL strings. The package is
// CommonJS, so it is loaded with a require() created for that folder
// (createRequire resolves from <folder>/node_modules like a script living
// there would).

import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

// failer returns a function that prints "NAME: msg" on stderr and exits.
export function failer(name) {
  return (code, msg) => {
    process.stderr.write(`${name}: ${msg}\n`);
    process.exit(code);
  };
}

function cacheDir() {
  if (process.env.PGSTUDY_CACHE) return process.env.PGSTUDY_CACHE;
  const base = process.env.XDG_CACHE_HOME || path.join(process.env.HOME || os.homedir(), '.cache');
  return path.join(base, 'pgstudy');
}

export function loadDuckDB(fail) {
  const dir = path.resolve(cacheDir(), 'duckdb');
  // The file name need not exist: it only anchors module resolution.
  const req = createRequire(path.join(dir, 'noop.js'));
  try {
    return req('@duckdb/node-api');
  } catch (err) {
    fail(1, `cannot load @duckdb/node-api from ${dir} (${err.message.split('\n')[0]}); run scripts/install-deps`);
  }
}

export function sqlString(s) {
  return `'${s.replaceAll("'", "''")}'`;
}
