// Whether this Node.js can run Periscope. Plain JavaScript of the oldest kind Node still parses: bin/periscope.js
// runs it before it loads any TypeScript or node:sqlite, so an older Node gets one line instead of a stack.

/**
 * The Node.js versions an installed package (dist/) runs on: `node:sqlite` unflagged with `DatabaseSync.isOpen`
 * (22.15, 23.11) and `isTransaction` (22.16, 24.0; never on the 23 line). `package.json` `engines.node` says the same.
 */
export const NODE_ENGINES_RANGE = '^22.16.0 || >=24.0.0';

/**
 * @param {{ version: string, fromSource: boolean, typeStripping: boolean | string | undefined }} runtime
 *   `version`: `process.versions.node`; `fromSource`: the bin is about to load src/*.ts (a source checkout), not dist/;
 *   `typeStripping`: `process.features.typescript` where this Node reports it ('strip', 'transform' or false).
 * @returns {string | undefined} one line saying what is needed, what was found and the two ways out; undefined when
 *   this Node can run Periscope (or the version is not one Node reports, so there is nothing to judge).
 */
export function checkNodeVersion(runtime) {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(runtime.version);
  if (!match) return undefined;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  const found = `${major}.${minor}.${match[3]}${runtime.version.slice(match[0].length)}`;
  const hasSqlite = major === 22 ? minor >= 16 : major >= 24;
  const stripsByDefault = major === 22 ? minor >= 18 : major === 23 ? minor >= 6 : major >= 24;
  const strips = runtime.typeStripping === undefined ? stripsByDefault : Boolean(runtime.typeStripping);
  const waysOut =
    'In a clone, run it as `npm run periscope -- <command>` (npm scripts use the Node.js 24 that `npm install` ' +
    'brings), or install Node.js 24.';
  if (!runtime.fromSource) {
    if (hasSqlite) return undefined;
    return `periscope needs Node.js 22.16 or later on the 22 line, or 24 or later (for node:sqlite); this is Node.js ${found}. ${waysOut}`;
  }
  if (hasSqlite && strips) return undefined;
  if (hasSqlite && stripsByDefault)
    return `periscope from a source checkout runs src/*.ts and so needs TypeScript type stripping, which this Node.js ${found} has turned off (--no-experimental-strip-types). ${waysOut}`;
  return `periscope needs Node.js 22.18 or later on the 22 line, or 24 or later (for node:sqlite, and for TypeScript type stripping: a source checkout runs src/*.ts); this is Node.js ${found}. ${waysOut}`;
}
