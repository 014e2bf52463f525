// `periscope/testing`: the helpers the built-in providers' tests use, for authors of their own providers. A provider
// API on 127.0.0.1 that records every request, a ProviderContext over the real guarded client (loopback only), and
// the shared failure suite every built-in runs (missing and invalid key, 429 with Retry-After, quota, 5xx, malformed
// JSON, a slow answer). Test-only: it imports node:test and node:assert. See docs/adding-a-provider.md.
export {
  type ExpectedProviderError,
  expectProviderError,
  jsonReply,
  type ProviderFailureSuite,
  runProviderFailureSuite,
  type StandInContextOptions,
  type StandInHandler,
  type StandInReply,
  standInContext,
  startProviderStandIn,
  withStandIn,
} from './provider-stand-in.ts';
export type { RecordedCall, TestServer } from './test-server.ts';
