import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

export interface SocksTarget {
  /** The address or name as sent by the client. */
  host: string;
  port: number;
  addressType: 'ipv4' | 'domain' | 'ipv6';
}

export interface Socks5Server {
  /** `socks5://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Every CONNECT request received. */
  connects: SocksTarget[];
  /** Targets refused because they are not loopback (or an unknown name): the test proxy never dials out. */
  refused: SocksTarget[];
  close(): Promise<void>;
}

export interface Socks5ServerOptions {
  /** Names the server "resolves" for domain-type requests (to loopback addresses only). */
  hosts?: Record<string, string>;
  /** Accept the TCP connection but never answer the greeting (for connect-timeout tests). */
  stall?: boolean;
}

const REPLY_NOT_ALLOWED = 0x02;
const REPLY_HOST_UNREACHABLE = 0x04;
const REPLY_COMMAND_NOT_SUPPORTED = 0x07;

function reply(socket: Socket, code: number): void {
  socket.write(Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]));
}

function formatIpv6(bytes: Buffer): string {
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push(bytes.readUInt16BE(index).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** Reads exactly `length` bytes from a paused socket. */
function readExactly(socket: Socket, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tryRead = () => {
      const chunk = socket.read(length) as Buffer | null;
      if (chunk === null) return;
      socket.off('readable', tryRead);
      socket.off('end', onEnd);
      resolve(chunk);
    };
    const onEnd = () => reject(new Error('client closed'));
    socket.on('readable', tryRead);
    socket.once('end', onEnd);
    tryRead();
  });
}

/**
 * A small real SOCKS5 server on 127.0.0.1: no authentication, CONNECT only, IPv4 / domain / IPv6 address types.
 * It records every requested target and only tunnels to loopback addresses.
 */
export async function startSocks5Server(options: Socks5ServerOptions = {}): Promise<Socks5Server> {
  const connects: SocksTarget[] = [];
  const refused: SocksTarget[] = [];
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };

  const handle = async (socket: Socket) => {
    const [version, methodCount = 0] = await readExactly(socket, 2);
    if (version !== 0x05) return socket.destroy();
    const methods = await readExactly(socket, methodCount);
    if (options.stall) return;
    if (!methods.includes(0x00)) return socket.end(Buffer.from([0x05, 0xff]));
    socket.write(Buffer.from([0x05, 0x00]));
    const [, command, , addressType] = await readExactly(socket, 4);
    let target: SocksTarget;
    if (addressType === 0x01) {
      const bytes = await readExactly(socket, 4);
      target = { host: [...bytes].join('.'), port: 0, addressType: 'ipv4' };
    } else if (addressType === 0x04) {
      target = { host: formatIpv6(await readExactly(socket, 16)), port: 0, addressType: 'ipv6' };
    } else {
      const [length = 0] = await readExactly(socket, 1);
      target = {
        host: (await readExactly(socket, length)).toString('latin1'),
        port: 0,
        addressType: 'domain',
      };
    }
    target.port = (await readExactly(socket, 2)).readUInt16BE(0);
    connects.push(target);
    if (command !== 0x01) return reply(socket, REPLY_COMMAND_NOT_SUPPORTED);
    const address = target.addressType === 'domain' ? options.hosts?.[target.host] : target.host;
    if (address === undefined || !(/^127\.\d+\.\d+\.\d+$/.test(address) || address === '::1')) {
      refused.push(target);
      reply(socket, address === undefined ? REPLY_HOST_UNREACHABLE : REPLY_NOT_ALLOWED);
      socket.end();
      return;
    }
    const upstream = connect(target.port, address);
    track(upstream);
    upstream.once('error', () => {
      reply(socket, REPLY_HOST_UNREACHABLE);
      socket.end();
    });
    upstream.once('connect', () => {
      reply(socket, 0x00);
      upstream.pipe(socket);
      socket.pipe(upstream);
      socket.resume();
    });
    socket.on('close', () => upstream.destroy());
  };

  const server = createServer({ pauseOnConnect: true }, (socket) => {
    track(socket);
    handle(socket).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `socks5://127.0.0.1:${port}`,
    port,
    connects,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
