import { createClient } from '@redis/client';
import { startRedisServer } from '../src/testing/redis-server.ts';

// 1: connect to a closed port
let connected = false;
const bad = createClient({ url: 'redis://127.0.0.1:1', disableOfflineQueue: true, socket: { connectTimeout: 1000, reconnectStrategy: (retries, cause) => connected ? 100 : cause } });
bad.on('error', (e) => console.log('bad error event', e?.constructor?.name, e.message));
try { await bad.connect(); console.log('connected?!'); } catch (e: any) { console.log('connect rejected', e.constructor.name, e.message, e.code); }

const server = await startRedisServer();
const client = createClient({ url: server.url, disableOfflineQueue: true, commandOptions: { timeout: 500 }, socket: { connectTimeout: 1000, reconnectStrategy: (retries, cause) => { console.log('reconnect', retries, cause?.message); return connected ? Math.min(100 * 2 ** retries, 1000) : cause; } } });
client.on('error', (e) => console.log('error event', e?.constructor?.name, e.message));
client.on('ready', () => { connected = true; console.log('ready'); });
await client.connect();
console.log(await client.eval('return redis.call("TIME")', { keys: [], arguments: [] }));
try { await client.evalSha('0000000000000000000000000000000000000000', { keys: [], arguments: [] }); } catch (e: any) { console.log('evalsha', e.constructor.name, e.message); }
// SIGSTOP
const pid = (await client.sendCommand(['INFO', 'server']) as string).match(/process_id:(\d+)/)![1];
process.kill(Number(pid), 'SIGSTOP');
const t0 = Date.now();
try { await client.get('x'); console.log('got'); } catch (e: any) { console.log('while stopped', e.constructor.name, e.message, Date.now() - t0); }
process.kill(Number(pid), 'SIGCONT');
await new Promise((r) => setTimeout(r, 200));
try { console.log('after cont', await client.get('x')); } catch (e: any) { console.log('after cont err', e.constructor.name, e.message); }
await server.kill();
try { await client.get('x'); } catch (e: any) { console.log('after kill', e.constructor.name, e.message); }
await new Promise((r) => setTimeout(r, 300));
try { await client.get('x'); } catch (e: any) { console.log('after kill 2', e.constructor.name, e.message); }
await server.restart();
await new Promise((r) => setTimeout(r, 1500));
try { console.log('after restart', await client.set('x', '1'), client.isReady); } catch (e: any) { console.log('after restart err', e.constructor.name, e.message); }
await client.close();
try { await client.get('x'); } catch (e: any) { console.log('after close', e.constructor.name, e.message); }
await server.stop();
