import { startRedisServer } from '../src/testing/redis-server.ts';
const s = await startRedisServer();
await s.kill(); await s.restart(); console.log('restarted', s.pid);
await s.stop(); console.log('stopped');
