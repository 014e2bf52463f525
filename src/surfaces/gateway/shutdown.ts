import type { Server, ServerResponse } from 'node:http';
import { createIdleCount } from '../../concurrency/idle-count.ts';
import type { AnswerTracker } from './router.ts';

/** Counts the answers being written, so that shutdown can wait until each has reached its socket. */
export function createAnswerTracker(): AnswerTracker & { idle(): Promise<void> } {
  const answering = createIdleCount();
  return {
    track(response: ServerResponse): void {
      answering.enter();
      response.once('close', answering.leave);
    },
    idle: answering.idle,
  };
}

/**
 * Shutdown: stop accepting, answer queued calls that never started at once, end the console's event streams, close
 * idle keep-alive sockets, wait until no tool call runs and every answer has reached its socket (or `timeoutMs`
 * passes), close the MCP sessions, then cut what is left.
 */
export async function drain(parts: {
  server: Server;
  listeners: { close(): Promise<void> } | undefined;
  metrics: { inFlight: number; closeQueue(): void; idle(): Promise<void> };
  answers: { idle(): Promise<void> };
  closeStreams: () => void;
  closeMcp: () => unknown;
  timeoutMs: number;
}): Promise<{ drained: boolean; inFlightAtStart: number }> {
  const { server, metrics } = parts;
  const inFlightAtStart = metrics.inFlight;
  metrics.closeQueue(); // calls that never started are answered now, not after the running ones
  parts.closeStreams();
  const closed = Promise.all([
    new Promise<void>((resolve) => server.close(() => resolve())),
    parts.listeners?.close(),
  ]);
  server.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const drained = await Promise.race([
    Promise.all([metrics.idle(), parts.answers.idle()]).then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), parts.timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  await parts.closeMcp(); // MCP sessions and their event streams
  server.closeAllConnections();
  await closed;
  return { drained, inFlightAtStart };
}
