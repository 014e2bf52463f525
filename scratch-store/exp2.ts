import { createClient } from '@redis/client';
import { startRedisServer } from '../src/testing/redis-server.ts';
const server = await startRedisServer();
let connected = false;
const client = createClient({ url: server.url, disableOfflineQueue: true, commandOptions: { timeout: 500 }, socket: { connectTimeout: 1000, reconnectStrategy: (retries, cause) => { console.log('reconnect', retries, cause?.message); return connected ? Math.min(100 * 2 ** retries, 1000) : cause; } } });
client.on('error', (e) => console.log('error event', e?.constructor?.name, e.message));
client.on('ready', () => { connected = true; console.log('ready'); });
await client.connect();
console.log('info...');
const pid = (await client.sendCommand(['INFO', 'server']) as string).match(/process_id:(\d+)/)![1];
console.log('pid', pid); process.kill(Number(pid), 'SIGSTOP');
const t0 = Date.now();
const timed = client.withCommandOptions({ timeout: 500 });
try { await Promise.race([timed.get('x'), new Promise((_, rej) => setTimeout(() => rej(new Error('my timeout')), 500))]); console.log('got'); } catch (e: any) { console.log('while stopped', e.constructor.name, e.message, Date.now() - t0); }
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
