import { startRedisServer } from '../src/testing/redis-server.ts';
const s = await startRedisServer();
console.log(s.pid);
process.kill(process.pid, 'SIGKILL');
