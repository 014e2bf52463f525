import type { ToolErrorData } from '../../errors.ts';

/** The flag that sets each named network limit (`details.limit` of TIMEOUT, BODY_TOO_LARGE, too many redirects). */
const LIMIT_FLAGS: Record<string, string> = {
  totalTimeoutMs: '--total-timeout-ms',
  connectTimeoutMs: '--connect-timeout-ms',
  headersTimeoutMs: '--headers-timeout-ms',
  bodyTimeoutMs: '--body-timeout-ms',
  maxBytes: '--max-bytes',
  maxHeaderBytes: '--max-header-bytes',
  maxRedirects: '--max-redirects',
};

/** What a person at a terminal can do about an error (the model gets its own sentence). */
export function errorHint(error: ToolErrorData): string {
  const details = error.details ?? {};
  const flag = typeof details.limit === 'string' ? LIMIT_FLAGS[details.limit] : undefined;
  if (flag) return ` (raise it with ${flag} N)`;
  if (error.code !== 'URL_BLOCKED') return '';
  // A scheme refusal says itself that only http and https can be fetched.
  // A private, loopback or otherwise non-public address, given or resolved, or a local host name: the allow-list
  // can open it. Other refusals (a scheme, a DNS answer that is not an address) are not a network to trust.
  const isAddressBlock = typeof details.address === 'string' || details.reason === 'loopback';
  return isAddressBlock
    ? ' (if you trust that network, open it with --allow-private-network <cidr|host>)'
    : '';
}
