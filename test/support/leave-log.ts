// Preloaded into `periscope serve` by test/multi-instance.test.ts (NODE_OPTIONS=--import): appends each HTTP request
// the process sends, as it leaves (src/testing/request-leaves.ts), to the file PERISCOPE_TEST_LEAVE_LOG names, one
// JSON line each. Every process of every instance appends to the one file (O_APPEND: a short line is one write).
import { appendFileSync } from 'node:fs';
import { queryOf, recordRequestLeaves } from '../../src/testing/request-leaves.ts';

const file = process.env.PERISCOPE_TEST_LEAVE_LOG;
if (file) recordRequestLeaves((leave) => appendFileSync(file, `${JSON.stringify(leave)}\n`), queryOf);
