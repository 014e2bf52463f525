import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { listenOn, portFree } from './listeners.ts';

const linuxOnly =
  process.platform !== 'linux' && 'the kernel deals connections among sockets of one port on Linux only';

/** How many sockets listen on 127.0.0.1:port (Linux: /proc/net/tcp, state 0A). */
function listeningCount(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((row) => row.trim().split(/\s+/))
    .filter((fields) => fields[1] === local && fields[3] === '0A').length;
}

function plan(sockets: number, extra: { port?: number; shared?: boolean; maxConnections?: number } = {}) {
  return {
    host: '127.0.0.1',
    port: extra.port ?? 0,
    backlog: 511,
    sockets,
    shared: extra.shared ?? false,
    maxConnections: extra.maxConnections ?? 10_000,
  };
}

function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/', agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });
}

async function stop(server: Server, close: () => Promise<void>): Promise<void> {
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await Promise.all([closed, close()]);
}

/** Opens `count` connections at once; resolves with the loop turns between the server's first and last accept. */
async function turnsToAccept(sockets: number, count: number): Promise<number> {
  const server = createServer();
  const listening = await listenOn(server, plan(sockets));
  let turns = 0;
  let counting = true;
  const tick = () => {
    turns += 1;
    if (counting) setImmediate(tick);
  };
  let accepted = 0;
  let firstAt = 0;
  const all = new Promise<number>((resolve) => {
    server.on('connection', () => {
      accepted += 1;
      if (accepted === 1) firstAt = turns;
      if (accepted === count) resolve(turns - firstAt);
    });
  });
  const clients: Socket[] = [];
  setImmediate(tick);
  for (let index = 0; index < count; index++) clients.push(connect(listening.port, '127.0.0.1'));
  const spent = await all;
  counting = false;
  for (const client of clients) client.destroy();
  await stop(server, listening.close);
  return spent;
}

test('one socket takes one new connection a loop turn; 64 sockets take a burst of 64 in a few turns', {
  skip: linuxOnly,
}, async () => {
  // Node (libuv) accepts one connection per listening socket per turn: 64 connections at once need 63 more turns.
  const single = await turnsToAccept(1, 64);
  assert.ok(single >= 60, `one socket: ${single} turns`);
  // The kernel deals them among 64 sockets by a hash: a few land on the same socket, the rest are taken at once.
  const many = await turnsToAccept(64, 64);
  assert.ok(many <= 16, `64 sockets: ${many} turns`);
});

test('every socket of the port feeds the one HTTP server; closing stops them all and frees the port', {
  skip: linuxOnly,
}, async () => {
  const listenersSeen = new Set<unknown>();
  const server = createServer((_incoming, response) => response.end('answered'));
  // Before the HTTP server's own listener, which sets `server` to itself: here it is the socket that accepted it.
  server.prependListener('connection', (socket: Socket & { server?: unknown }) => {
    listenersSeen.add(socket.server);
  });
  const listening = await listenOn(server, plan(8));
  assert.equal(listeningCount(listening.port), 8);
  const answers = await Promise.all(Array.from({ length: 64 }, () => get(listening.port)));
  assert.deepEqual(new Set(answers), new Set(['answered']));
  assert.ok(listenersSeen.size >= 2, `connections came through ${listenersSeen.size} of the 8 sockets`);
  await stop(server, listening.close);
  assert.equal(listeningCount(listening.port), 0);
  await portFree('127.0.0.1', listening.port); // rejects if anything still held it
});

test('maxConnections holds over all the sockets together', { skip: linuxOnly }, async () => {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached = 0;
  const server = createServer(async (_incoming, response) => {
    reached += 1;
    await released;
    response.end('ok');
  });
  const listening = await listenOn(server, plan(8, { maxConnections: 5 }));
  const calls = Array.from({ length: 24 }, () => get(listening.port).catch(() => 'refused'));
  try {
    // Every connection has been accepted or refused once five are held and a moment has passed.
    for (let wait = 0; wait < 100 && reached < 5; wait++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(reached, 5, 'five calls reached the server');
  } finally {
    release();
  }
  const outcomes = await Promise.all(calls);
  assert.equal(outcomes.filter((outcome) => outcome === 'ok').length, 5);
  assert.equal(outcomes.filter((outcome) => outcome === 'refused').length, 19);
  await stop(server, listening.close);
});

test('a second gateway on a port in use fails with EADDRINUSE; a worker of the same serve joins it', {
  skip: linuxOnly,
}, async () => {
  const first = createServer((_incoming, response) => response.end('first'));
  const held = await listenOn(first, plan(4));
  await assert.rejects(portFree('127.0.0.1', held.port), { code: 'EADDRINUSE' });
  await assert.rejects(listenOn(createServer(), plan(4, { port: held.port })), { code: 'EADDRINUSE' });
  await assert.rejects(listenOn(createServer(), plan(1, { port: held.port })), { code: 'EADDRINUSE' });
  assert.equal(listeningCount(held.port), 4, "the first one's sockets only");
  const sibling = createServer((_incoming, response) => response.end('sibling'));
  const joined = await listenOn(sibling, plan(4, { port: held.port, shared: true }));
  assert.equal(listeningCount(held.port), 8);
  await stop(sibling, joined.close);
  await stop(first, held.close);
});

test("in workers of an application's own node:cluster, gateways share the port through the primary as before", async () => {
  const probe = createServer();
  const { port } = await listenOn(probe, plan(1));
  await new Promise((resolve) => probe.close(resolve));
  cluster.setupPrimary({
    exec: new URL('../../../test/support/cluster-gateway-worker.ts', import.meta.url).pathname,
  });
  const workers = [0, 1].map(() => cluster.fork({ PORT: String(port) }));
  try {
    const reports = await Promise.all(
      workers.map((worker) => new Promise<unknown>((resolve) => worker.once('message', resolve))),
    );
    assert.deepEqual(reports, [
      { listening: true, sockets: 1 },
      { listening: true, sockets: 1 },
    ]);
    assert.match(await get(port), /^worker \d+$/);
  } finally {
    for (const worker of workers) worker.send('stop');
    await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('exit', resolve))));
  }
});
