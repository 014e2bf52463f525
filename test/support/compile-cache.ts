// Preloaded into every test file's process by `npm test` (--import): Node keeps the compiled, type-stripped modules
// on disk, as bin/periscope.js does for the CLI, so the 170-odd test processes do not each compile src/ anew.
import module from 'node:module';

module.enableCompileCache?.();
