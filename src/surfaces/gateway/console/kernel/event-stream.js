// Server-sent events over fetch() streaming: EventSource cannot send the key in a header.
import { authorization } from './api.js';

/** Wait before reconnecting, as the gateway's `retry:` line asks. */
const RETRY_MS = 2000;

/**
 * Follows the event stream at `path` until `signal` aborts, reconnecting after a failure or an end with the
 * `Last-Event-ID` that `lastId()` gives then. Tells `opened` when a connection is up, `failed(error)` when it
 * broke, and `received(event)` for each event ({ type, data }).
 */
export async function followEvents(path, { signal, lastId, opened, received, failed }) {
  while (!signal.aborted) {
    try {
      const headers = { accept: 'text/event-stream', ...authorization() };
      const last = lastId();
      if (last) headers['last-event-id'] = String(last);
      const response = await fetch(path, { headers, signal, cache: 'no-store', credentials: 'omit' });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      opened();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const event = parseEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          received(event);
          end = buffer.indexOf('\n\n');
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      failed(error);
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/** One event block: its `event:` type ('message' if none) and its `data:` lines joined. */
function parseEvent(block) {
  const event = { type: 'message', data: '' };
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event.type = line.slice(6).trim();
    else if (line.startsWith('data:')) event.data += line.slice(5).trimStart();
  }
  return event;
}
