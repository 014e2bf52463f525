/** The Node.js versions an installed package (dist/) runs on; `package.json` `engines.node` says the same. */
export declare const NODE_ENGINES_RANGE: string;

export interface NodeRuntime {
  /** `process.versions.node`, e.g. `20.20.2` (a leading `v` is accepted). */
  version: string;
  /** The bin is about to load src/*.ts (a source checkout), not dist/. */
  fromSource: boolean;
  /** `process.features.typescript` where this Node reports it: `'strip'`, `'transform'` or `false`. */
  typeStripping: boolean | string | undefined;
}

/** One line saying what is needed, what was found and the two ways out; `undefined` when this Node can run Periscope. */
export declare function checkNodeVersion(runtime: NodeRuntime): string | undefined;
