// The authenticator on a real store: key checks of one event-loop turn share one read of the key's record, and a
// revocation holds from the next turn on.
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { createApiKey, revokeApiKey } from '../../keys/api-keys.ts';
import { createMemoryStore } from '../../store/memory-store.ts';
import type { Store } from '../../store/store.ts';
import { createAuthenticator } from './auth.ts';
import { GatewayError } from './http-io.ts';

/** The request fields the authenticator reads. */
function requestWith(key: string): IncomingMessage {
  return {
    headers: { authorization: `Bearer ${key}` },
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('requests of one turn presenting the same key share one read of its record; a revocation holds from the next turn', async () => {
  const store = createMemoryStore();
  const reads: string[] = [];
  // The real store, its reads counted.
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      if (name === 'get')
        return (key: string) => {
          // The failure limit's read of the IP's block (auth-failures.ts) is not a key's record.
          if (!key.startsWith('gateway:auth-')) reads.push(key);
          return target.get(key);
        };
      return Reflect.get(target, name, receiver);
    },
  }) as Store;
  const { key, record } = await createApiKey(store, { agent: 'reader' });
  const other = await createApiKey(store, { agent: 'writer' });
  const auth = createAuthenticator({
    store: counted,
    alwaysRequireKey: true,
    defaultAgent: 'default',
    failuresPerMinute: 100,
  });

  const together = await Promise.all([
    auth.authenticate(requestWith(key)),
    auth.authenticate(requestWith(key)),
    auth.authenticate(requestWith(other.key)),
    auth.authenticate(requestWith(key)),
  ]);
  assert.deepEqual(
    together.map((principal) => principal.agent),
    ['reader', 'reader', 'writer', 'reader'],
  );
  assert.equal(reads.length, 2, 'one read per key');

  await nextTurn();
  assert.equal((await auth.authenticate(requestWith(key))).agent, 'reader');
  assert.equal(reads.length, 3, 'read again in the next turn');

  await revokeApiKey(store, record.id);
  // Same turn as the check above: that read stands for this one too.
  assert.equal((await auth.authenticate(requestWith(key))).agent, 'reader');
  await nextTurn();
  await assert.rejects(
    auth.authenticate(requestWith(key)),
    (error: unknown) => error instanceof GatewayError && error.status === 401,
  );
  assert.equal(reads.length, 4);
  await store.close();
});
