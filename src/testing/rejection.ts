import assert from 'node:assert/strict';
import { isPeriscopeError, type PeriscopeError } from '../errors.ts';

/** The PeriscopeError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function periscopeRejection(
  promise: Promise<unknown>,
  what = 'the call',
): Promise<PeriscopeError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isPeriscopeError(error), `expected a PeriscopeError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${what} to fail`);
}
