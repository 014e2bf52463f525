import { DatabaseSync } from 'node:sqlite';
import { createSqliteStore } from '../src/store/sqlite-store.ts';
import { mkdtempSync } from 'node:fs'; import { join } from 'node:path'; import { tmpdir } from 'node:os';
const path = join(mkdtempSync(join(tmpdir(), 'sqb-')), 's.db');
const store = createSqliteStore({ path });
const lat: number[] = [];
const t0 = performance.now();
for (let i = 0; i < 20000; i++) { const b = performance.now(); await store.consume(`bench:${i % 100}`, 1, 1e9, 60000); lat.push(performance.now() - b); }
const total = performance.now() - t0;
lat.sort((a, b) => a - b);
console.log('ops/s', Math.round(20000 / total * 1000), 'p50', lat[10000], 'p99', lat[19800], 'max', lat.at(-1), 'sum>1ms', lat.filter(x => x > 1).reduce((a, b) => a + b, 0));
const raw = new DatabaseSync(path);
console.log(raw.prepare('PRAGMA wal_autocheckpoint').get(), raw.prepare('select count(*) c from rate_window').get());
