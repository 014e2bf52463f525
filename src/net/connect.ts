import { once } from 'node:events';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { isPeriscopeError } from '../errors.ts';
import { networkError } from './net-errors.ts';
import type { CheckedAddress } from './pinned-lookup.ts';
import type { ProxyEndpoint } from './proxy.ts';
import { openHttpTunnel, openSocksTunnel, type TunnelContext } from './proxy-tunnel.ts';
import type { ConnectAttempt } from './types.ts';
import type { UrlTarget } from './url-policy.ts';

/** Called synchronously right before every TCP connect; throwing refuses the connect. For audits and tests. */
export type BeforeConnect = (attempt: ConnectAttempt) => void;

export interface ConnectInput {
  target: UrlTarget;
  addresses: readonly CheckedAddress[];
  proxy: ProxyEndpoint | undefined;
  /** Aborted (with the error to throw as its reason) by the connect timer, total timer or the caller. */
  signal: AbortSignal;
  context: TunnelContext;
  connectTimeoutMs: number;
  ca?: ConnectionOptions['ca'];
  beforeConnect?: BeforeConnect | undefined;
}

export interface Connection {
  socket: Socket;
  /** The address the request really went to: the peer for direct connections, the tunnel target via a proxy. */
  remoteAddress: string;
}

const noop = () => {};

/** Connection errors after which the next checked address of the same host is worth trying. */
const TRY_NEXT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'EAFNOSUPPORT']);

/** Waits for an event; on abort, rejects with the signal's reason (our PeriscopeError), not a generic AbortError. */
async function waitFor(emitter: Socket, event: string, signal: AbortSignal): Promise<void> {
  try {
    await once(emitter, event, { signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw error;
  }
}

/**
 * Opens the connection for one hop — direct to a checked address, or through the proxy to a checked address —
 * and does the TLS handshake with the original host name as SNI and certificate name. Every TCP socket of the
 * library is created here, after `beforeConnect`.
 */
export async function openConnection(input: ConnectInput): Promise<Connection> {
  const sockets = new Set<Socket>();
  const destroyAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  input.signal.addEventListener('abort', destroyAll, { once: true });
  try {
    if (input.signal.aborted) throw input.signal.reason;
    const dial = async (host: string, port: number, via: ConnectAttempt['via']) => {
      input.beforeConnect?.({ host, port, via });
      const socket = netConnect({ host, port, noDelay: true });
      socket.on('error', noop); // errors are observed by whoever waits on the socket; never crash the process
      sockets.add(socket);
      await waitFor(socket, 'connect', input.signal);
      return socket;
    };
    const { socket, remoteAddress } = input.proxy
      ? await connectViaProxy(input, input.proxy, dial)
      : await connectDirect(input, dial);
    if (input.target.url.protocol !== 'https:') return { socket, remoteAddress };
    const servername = isIP(input.target.hostname) ? undefined : input.target.hostname;
    const secure = tlsConnect({
      socket,
      host: input.target.hostname,
      ...(servername === undefined ? {} : { servername }),
      ...(input.ca === undefined ? {} : { ca: input.ca }),
      ALPNProtocols: ['http/1.1'],
    });
    secure.on('error', noop);
    sockets.add(secure);
    await waitFor(secure, 'secureConnect', input.signal);
    return { socket: secure, remoteAddress };
  } catch (error) {
    destroyAll();
    if (input.signal.aborted) throw input.signal.reason;
    if (isPeriscopeError(error)) throw error;
    throw networkError(
      input.context.operation,
      input.context.url,
      error,
      input.proxy ? 'proxy' : 'connect',
      0,
    );
  } finally {
    input.signal.removeEventListener('abort', destroyAll);
  }
}

type Dial = (host: string, port: number, via: ConnectAttempt['via']) => Promise<Socket>;

async function connectDirect(input: ConnectInput, dial: Dial): Promise<Connection> {
  let lastError: unknown;
  for (const candidate of input.addresses) {
    try {
      const socket = await dial(candidate.address, input.target.port, 'direct');
      // The address dialled, as checked: asking the socket (socket.remoteAddress) is a getpeername system call.
      return { socket, remoteAddress: candidate.address };
    } catch (error) {
      lastError = error;
      const code = (error as NodeJS.ErrnoException).code;
      if (input.signal.aborted || code === undefined || !TRY_NEXT.has(code)) throw error;
    }
  }
  throw lastError;
}

async function connectViaProxy(input: ConnectInput, proxy: ProxyEndpoint, dial: Dial): Promise<Connection> {
  const first = input.addresses[0];
  if (!first) throw new Error('no checked address to connect to');
  const destination = { ...first, port: input.target.port };
  let socket = await dial(proxy.host, proxy.port, 'proxy');
  if (proxy.protocol === 'https:') {
    const secure = tlsConnect({
      socket,
      host: proxy.host,
      ...(isIP(proxy.host) ? {} : { servername: proxy.host }),
      ...(input.ca === undefined ? {} : { ca: input.ca }),
    });
    secure.on('error', noop);
    await waitFor(secure, 'secureConnect', input.signal);
    socket = secure;
  }
  if (proxy.protocol === 'socks5:' || proxy.protocol === 'socks5h:') {
    const tunnel = await abortable(
      openSocksTunnel(socket, proxy, destination, input.context, input.connectTimeoutMs),
      input.signal,
    );
    return { socket: tunnel, remoteAddress: first.address };
  }
  await abortable(openHttpTunnel(socket, proxy, destination, input.context), input.signal);
  return { socket, remoteAddress: first.address };
}

/** Races a promise with the signal; the loser's rejection is swallowed. */
export function abortable<VALUE>(promise: Promise<VALUE>, signal: AbortSignal): Promise<VALUE> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<VALUE>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
