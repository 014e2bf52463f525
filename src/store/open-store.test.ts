import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { isPeriscopeError } from '../errors.ts';
import { defaultSqlitePath, openStore, sqlitePathFromUrl } from './open-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'periscope-open-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('memory: opens a memory store', async () => {
  const store = await openStore('memory:');
  assert.equal(store.kind, 'memory');
  await store.set('k', 1);
  assert.equal(await store.get('k'), 1);
  await store.close();
});

test('sqlite://PATH opens (and creates) that file', async () => {
  const path = join(dir, 'sub', 'state.db');
  const store = await openStore(`sqlite://${path}`);
  assert.equal(store.kind, 'sqlite');
  assert.equal(store.location, path);
  await store.close();
});

test('sqlite URLs: default, ~, absolute and relative paths; the default follows XDG_STATE_HOME', () => {
  assert.equal(defaultSqlitePath({ XDG_STATE_HOME: '/state' }), '/state/periscope/state.db');
  assert.equal(defaultSqlitePath({}), join(homedir(), '.local', 'state', 'periscope', 'state.db'));
  assert.equal(
    sqlitePathFromUrl('sqlite://default', { XDG_STATE_HOME: '/state' }),
    '/state/periscope/state.db',
  );
  assert.equal(sqlitePathFromUrl('sqlite://', { XDG_STATE_HOME: '/state' }), '/state/periscope/state.db');
  assert.equal(sqlitePathFromUrl('sqlite://~/p/state.db'), join(homedir(), 'p', 'state.db'));
  assert.equal(sqlitePathFromUrl('sqlite:///var/lib/p.db'), '/var/lib/p.db');
  assert.equal(sqlitePathFromUrl('sqlite://data/p.db'), resolve('data/p.db'));
  assert.equal(sqlitePathFromUrl('sqlite://./default'), resolve('default'));
});

test('sqlite://default creates the state directory', async () => {
  const previous = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = join(dir, 'xdg');
  try {
    const store = await openStore('sqlite://default');
    assert.equal(store.location, join(dir, 'xdg', 'periscope', 'state.db'));
    await store.close();
  } finally {
    if (previous === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = previous;
  }
});

test('an unknown scheme: one CONFIG_INVALID line naming the accepted forms, credentials masked', async () => {
  await assert.rejects(
    openStore('postgres://admin:s3cret@db/periscope'),
    (error: unknown) =>
      isPeriscopeError(error) &&
      error.code === 'CONFIG_INVALID' &&
      /memory:, sqlite:\/\/PATH .* or redis:\/\/HOST:PORT/.test(error.message) &&
      !error.message.includes('s3cret') &&
      !error.message.includes('\n'),
  );
  await assert.rejects(
    openStore('state.db'),
    (error: unknown) => isPeriscopeError(error) && error.code === 'CONFIG_INVALID',
  );
});
