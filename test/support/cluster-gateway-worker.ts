// A node:cluster worker of an application that runs a gateway server in workers of its own (not `periscope serve`):
// it listens as the gateway does by default, on PORT, and tells the primary how it went.
import { createServer } from 'node:http';
import { acceptSockets, listenOn } from '../../src/surfaces/gateway/listeners.ts';

const server = createServer((_request, response) => response.end(`worker ${process.pid}`));
try {
  await listenOn(server, {
    host: '127.0.0.1',
    port: Number(process.env.PORT),
    backlog: 511,
    sockets: acceptSockets(),
    shared: false,
    maxConnections: 100,
  });
  process.send?.({ listening: true, sockets: acceptSockets() });
} catch (error) {
  process.send?.({ listening: false, code: (error as NodeJS.ErrnoException).code });
}
process.on('message', (order) => {
  if (order === 'stop') server.close(() => process.disconnect());
});
