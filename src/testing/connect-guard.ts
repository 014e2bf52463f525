import type { ConnectAttempt } from '../net/types.ts';

export interface LoopbackConnectGuard {
  /** Pass as `HttpClientOptions.beforeConnect`. */
  beforeConnect: (attempt: ConnectAttempt) => void;
  /** Every connect the client attempted, allowed or not. */
  attempts: ConnectAttempt[];
  /** Connects to anything but 127.0.0.0/8 or ::1: refused before a packet left, and a test failure. */
  violations: ConnectAttempt[];
}

/**
 * The test-side safety net of the network rule "tests talk to loopback only": the client calls `beforeConnect`
 * synchronously right before every TCP connect (connect.ts creates every socket the client uses), so even a bug in
 * the URL policy or the pinned lookup cannot send a packet to a private or public address from a test. Tests that
 * feed private answers through an injected resolver assert `violations` is empty in addition to URL_BLOCKED.
 */
export function createLoopbackConnectGuard(): LoopbackConnectGuard {
  const attempts: ConnectAttempt[] = [];
  const violations: ConnectAttempt[] = [];
  return {
    attempts,
    violations,
    beforeConnect(attempt) {
      attempts.push(attempt);
      if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(attempt.host) && attempt.host !== '::1') {
        violations.push(attempt);
        throw new Error(
          `test connect guard: refusing to dial ${attempt.host}:${attempt.port} (loopback only)`,
        );
      }
    },
  };
}
