import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { PeriscopeError, type PeriscopeErrorDetails } from '../errors.ts';
import type { CheckedAddress } from './pinned-lookup.ts';
import type { ProxyEndpoint } from './proxy.ts';

/** Where the tunnel goes: always an address the policy checked, never a name (the proxy resolves nothing). */
export interface TunnelDestination extends CheckedAddress {
  port: number;
}

export interface TunnelContext {
  operation: string;
  url: string;
}

const MAX_PROXY_HEAD_BYTES = 16_384;

function proxyFailure(
  context: TunnelContext,
  proxy: ProxyEndpoint,
  text: string,
  retryable: boolean,
  extra: PeriscopeErrorDetails<'NETWORK'> = {},
  cause?: unknown,
) {
  return new PeriscopeError('NETWORK', `${context.operation} failed: proxy ${proxy.display} ${text}`, {
    retryable,
    cause,
    details: { url: context.url, reason: 'proxy', proxy: proxy.display, ...extra },
  });
}

function authority(destination: TunnelDestination): string {
  return destination.family === 6
    ? `[${destination.address}]:${destination.port}`
    : `${destination.address}:${destination.port}`;
}

/** Reads the proxy's reply head with `read()` (paused mode), so no byte of the tunnel is consumed by us. */
function readProxyHead(socket: Duplex, context: TunnelContext, proxy: ProxyEndpoint): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const cleanup = () => {
      socket.off('readable', onReadable);
      socket.off('end', onEnd);
      socket.off('error', onError);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onEnd = () => {
      cleanup();
      reject(proxyFailure(context, proxy, 'closed the connection during CONNECT', true));
    };
    const onReadable = () => {
      for (
        let chunk = socket.read() as Buffer | null;
        chunk !== null;
        chunk = socket.read() as Buffer | null
      ) {
        chunks.push(chunk);
        length += chunk.length;
        const buffered = Buffer.concat(chunks, length);
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) {
          if (length > MAX_PROXY_HEAD_BYTES) {
            cleanup();
            reject(proxyFailure(context, proxy, 'sent an oversized CONNECT response', false));
          }
          continue;
        }
        cleanup();
        if (end + 4 !== buffered.length) {
          // Nothing may arrive before we speak (TLS ClientHello or the HTTP request): treat extra bytes as hostile.
          reject(proxyFailure(context, proxy, 'sent unexpected data after its CONNECT response', false));
          return;
        }
        resolve(buffered.subarray(0, end).toString('latin1'));
        return;
      }
    };
    socket.on('readable', onReadable);
    socket.once('end', onEnd);
    socket.once('error', onError);
  });
}

/**
 * HTTP CONNECT to the checked address, for http and https targets alike, so an HTTP proxy never resolves names.
 * The socket is connected to the proxy; on return it is a raw tunnel to the destination.
 */
export async function openHttpTunnel(
  socket: Duplex,
  proxy: ProxyEndpoint,
  destination: TunnelDestination,
  context: TunnelContext,
): Promise<void> {
  const target = authority(destination);
  const lines = [`CONNECT ${target} HTTP/1.1`, `Host: ${target}`];
  if (proxy.username !== undefined) {
    const credentials = Buffer.from(`${proxy.username}:${proxy.password ?? ''}`).toString('base64');
    lines.push(`Proxy-Authorization: Basic ${credentials}`);
  }
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  const head = await readProxyHead(socket, context, proxy);
  const status = /^HTTP\/1\.[01] (\d{3})(?: (.*))?/.exec(head.split('\r\n', 1)[0] ?? '');
  const code = Number(status?.[1] ?? 0);
  if (code >= 200 && code < 300) return;
  const statusText = `${code || 'an invalid status'}${status?.[2] ? ` ${status[2]}` : ''}`;
  const retryable = code === 0 ? false : code >= 500 || code === 429;
  const text =
    code === 407
      ? `requires authentication (407); put user:password in the proxy URL`
      : `refused CONNECT to ${target} with ${statusText}`;
  throw proxyFailure(context, proxy, text, retryable, { status: code });
}

/**
 * SOCKS5 CONNECT to the checked address, over a socket already connected to the proxy. For `socks5h:` too we send
 * the checked IP, never the name: the policy decided on that IP and the proxy must not resolve it again.
 */
export async function openSocksTunnel(
  socket: Socket,
  proxy: ProxyEndpoint,
  destination: TunnelDestination,
  context: TunnelContext,
  timeoutMs: number,
): Promise<Socket> {
  const { SocksClient } = await import('socks');
  try {
    const { socket: tunnel } = await SocksClient.createConnection({
      command: 'connect',
      destination: { host: destination.address, port: destination.port },
      proxy: {
        host: proxy.host,
        port: proxy.port,
        type: 5,
        ...(proxy.username === undefined ? {} : { userId: proxy.username, password: proxy.password ?? '' }),
      },
      existing_socket: socket,
      timeout: timeoutMs,
    });
    return tunnel;
  } catch (error) {
    if (error instanceof PeriscopeError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const text = `refused SOCKS5 CONNECT to ${authority(destination)}: ${message}`;
    throw proxyFailure(context, proxy, text, true, {}, error);
  }
}
