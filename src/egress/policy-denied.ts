import { PeriscopeError } from '../errors.ts';
import type { EgressDenial } from './egress-check.ts';

/**
 * POLICY_DENIED from a check's denial: never retryable (the same call is refused the same way), with the reason and
 * the check's details. The model reads the sentence for the reason (src/tools/describe-error.ts) and this message.
 */
export function policyDenied(denial: EgressDenial, check: string): PeriscopeError<'POLICY_DENIED'> {
  return new PeriscopeError('POLICY_DENIED', denial.message, {
    retryable: false,
    details: { ...denial.details, reason: denial.reason, check },
  });
}
