// The Node.js version check that bin/periscope.js runs before it loads any TypeScript or node:sqlite: the pure rule
// on many version strings, and the real bin spawned under an older Node (the system's, when it has one).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkNodeVersion, NODE_ENGINES_RANGE } from '../bin/check-node-version.js';
import { BIN } from './support/run-cli.ts';

const installed = (version: string) =>
  checkNodeVersion({ version, fromSource: false, typeStripping: undefined });
const fromSource = (version: string, typeStripping?: boolean | string) =>
  checkNodeVersion({ version, fromSource: true, typeStripping });

test('an installed package (dist/) runs on Node 22.16+ of the 22 line and on 24+', () => {
  for (const version of [
    '22.16.0',
    'v22.16.0',
    '22.16.1',
    '22.20.0',
    '22.99.3',
    '24.0.0',
    'v24.21.0',
    '25.1.0',
    '30.0.0',
  ])
    assert.equal(installed(version), undefined, version);
  for (const version of ['22.16.0-rc.1', '24.0.0-nightly20250101abcdef', 'v24.0.0-pre'])
    assert.equal(installed(version), undefined, `a pre-release of an accepted version: ${version}`);
});

test('an installed package refuses Node before 22.16 (no DatabaseSync.isOpen/isTransaction) and the 23 line', () => {
  for (const version of [
    '0.10.48',
    '12.22.12',
    '16.20.2',
    '18.20.8',
    'v20.20.2',
    '21.7.3',
    '22.0.0',
    '22.5.1',
    '22.12.0',
    '22.13.0',
    '22.15.1',
    '23.0.0',
    '23.4.0',
    '23.11.1',
  ]) {
    const problem = installed(version);
    assert.ok(problem, `${version} must be refused`);
    assert.match(problem, /needs Node\.js 22\.16 or later on the 22 line, or 24 or later/);
    assert.ok(problem.includes(`this is Node.js ${version.replace(/^v/, '')}`), problem);
  }
});

test('a source checkout also needs type stripping: on by default from 22.18 and 23.6, or turned on by a flag', () => {
  for (const version of ['22.18.0', '22.19.1', '24.0.0', '24.21.0', '26.0.0'])
    assert.equal(fromSource(version), undefined, version);
  for (const version of ['20.20.2', '22.13.0', '22.16.0', '22.17.1', '23.6.0', '23.11.1']) {
    const problem = fromSource(version);
    assert.ok(problem, `${version} must be refused for src/`);
    assert.match(problem, /needs Node\.js 22\.18 or later on the 22 line, or 24 or later/);
    assert.match(problem, /TypeScript type stripping/);
  }
  // process.features.typescript, where Node reports it, is the fact: a flag can turn stripping on or off.
  assert.equal(fromSource('22.16.0', 'strip'), undefined, '--experimental-strip-types on 22.16');
  assert.equal(fromSource('22.17.0', 'transform'), undefined);
  const off = fromSource('24.21.0', false);
  assert.ok(off, 'type stripping turned off on Node 24');
  assert.match(off, /type stripping, which this Node\.js 24\.21\.0 has turned off/);
  assert.ok(fromSource('22.15.0', 'strip'), 'stripping alone does not bring node:sqlite isTransaction');
});

test('the message is one line naming what is needed, what was found and the two ways out', () => {
  for (const problem of [installed('20.20.2'), fromSource('20.20.2'), fromSource('24.1.0', false)]) {
    assert.ok(problem);
    assert.doesNotMatch(problem, /\n/);
    assert.match(problem, /^periscope /);
    assert.match(problem, /`npm run periscope -- <command>`/);
    assert.match(problem, /install Node\.js 24/);
  }
});

test('a version string Node never reports is not judged (Periscope runs and Node says what fails)', () => {
  for (const version of ['', 'unknown', 'v', '22', '22.x', 'x.y.z'])
    assert.equal(installed(version), undefined, version);
});

test('package.json engines.node is the range the bin enforces for an installed package', () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    engines: { node: string };
  };
  assert.equal(manifest.engines.node, NODE_ENGINES_RANGE);
  assert.equal(NODE_ENGINES_RANGE, '^22.16.0 || >=24.0.0');
});

/** The first Node.js on this machine too old for Periscope, with its version, if any. */
function olderNode(): { path: string; version: string } | undefined {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    if (!existsSync(path)) continue;
    let version: string;
    try {
      version = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
    } catch {
      continue;
    }
    if (installed(version) !== undefined) return { path, version };
  }
  return undefined;
}

const OLDER_NODE = olderNode();

test('bin/periscope.js under an older Node prints one line, no stack, and exits 2', {
  skip: OLDER_NODE
    ? false
    : 'no Node.js older than 22.16 on this machine (looked at /usr/bin/node, /usr/local/bin/node)',
}, () => {
  const older = OLDER_NODE as { path: string; version: string };
  const home = mkdtempSync(join(tmpdir(), 'periscope-old-node-'));
  for (const args of [
    ['credits', 'show'],
    ['keys', 'list'],
    ['fetch', 'http://127.0.0.1:9/'],
    ['--version'],
  ]) {
    let code = 0;
    let stdout = '';
    let stderr = '';
    try {
      stdout = execFileSync(older.path, [BIN, ...args], {
        cwd: home,
        env: { PATH: '/usr/bin:/bin', HOME: home },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 30_000,
      });
    } catch (error) {
      const failure = error as { status: number | null; stdout: string; stderr: string };
      code = failure.status ?? -1;
      stdout = failure.stdout;
      stderr = failure.stderr;
    }
    const label = `${older.path} (${older.version}) ${args.join(' ')}`;
    assert.equal(code, 2, `${label}: exit code; stderr: ${stderr}`);
    assert.equal(stdout, '', `${label}: nothing on stdout`);
    assert.equal(stderr.trimEnd().split('\n').length, 1, `${label}: one line, got:\n${stderr}`);
    assert.doesNotMatch(stderr, /\n\s+at |node:internal|ERR_|Error:/, `${label}: no stack`);
    assert.match(stderr, /needs Node\.js 22\.18 or later/, label);
    assert.ok(stderr.includes(`this is Node.js ${older.version.replace(/^v/, '')}`), label);
    assert.match(stderr, /npm run periscope -- <command>.*install Node\.js 24/, label);
  }
});
