import type { IncomingMessage } from 'node:http';
import type { Principal } from './auth.ts';
import { GatewayError } from './http-io.ts';

/** URLs one Periscope-Task-Urls header may carry. */
const MAX_TASK_URLS = 100;

/** What a REST caller wants back of a ToolResult (Periscope-Return). */
export type ReturnMode = 'output' | 'data' | 'both';
const RETURN_MODES: readonly ReturnMode[] = ['both', 'output', 'data'];

/** The declared request headers of a call, parsed. */
export interface RequestHeaders {
  /** The repeat throttle's session: `agent/id`, from Periscope-Session. */
  session?: string;
  /** The task's own URLs, from Periscope-Task-Urls. */
  taskUrls?: string[];
  /** Periscope-Return; `both` when absent. */
  returnMode?: ReturnMode;
}

/** A request header a route may declare: how it is read and checked, and what /openapi.json says of it. */
interface HeaderParameter {
  /** The header's name as documented (HTTP header names are case-insensitive). */
  name: string;
  read(request: IncomingMessage, principal: Principal, into: RequestHeaders): void;
  /** Its OpenAPI parameter object, less `name` and `in`. */
  doc: { description: string; schema: Record<string, unknown> };
}

export const HEADERS = {
  session: {
    name: 'Periscope-Session',
    /**
     * The repeat throttle's session for a REST call, within the caller's agent. Without the header there is none:
     * each call is its own session, which the throttle can never refuse, so it is not checked (and writes nothing
     * to the store).
     */
    read(request, principal, into) {
      const session = request.headers['periscope-session'];
      if (session === undefined) return;
      if (typeof session !== 'string' || !/^[\w.:-]{1,128}$/.test(session)) {
        throw new GatewayError(
          400,
          'BAD_REQUEST',
          'the Periscope-Session header must be 1–128 letters, digits or . _ : - (one id per conversation turn)',
        );
      }
      into.session = `${principal.agent}/${session}`;
    },
    doc: {
      description:
        "Groups the agent's calls into one session (one agent turn), the scope of the repeated-lookup " +
        'throttle. Without it each call is its own session, which the throttle never refuses.',
      schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,128}$' },
    },
  },
  taskUrls: {
    name: 'Periscope-Task-Urls',
    /**
     * The task's own URLs for egress.seenUrlsOnly, separated by spaces (the header may repeat). The client sets it
     * — the program that holds the user's task, never the model — and web_fetch may then read those URLs; with a
     * Periscope-Session they join the session's seen URLs.
     */
    read(request, _principal, into) {
      const values = request.headersDistinct['periscope-task-urls'];
      if (values === undefined) return;
      const urls = values.flatMap((value) => value.split(/\s+/)).filter((url) => url !== '');
      const bad = urls.find((url) => !/^https?:\/\/\S+$/i.test(url) || !URL.canParse(url));
      if (bad !== undefined || urls.length > MAX_TASK_URLS) {
        throw new GatewayError(
          400,
          'BAD_REQUEST',
          `the Periscope-Task-Urls header must be at most ${MAX_TASK_URLS} absolute http(s) URLs separated by spaces`,
        );
      }
      into.taskUrls = urls;
    },
    doc: {
      description:
        "The task's own URLs (the user's question, documents it names), separated by spaces, at most 100: " +
        'under egress.seenUrlsOnly web_fetch may read them, and with Periscope-Session they join the ' +
        "session's seen URLs. Set by the client program, never by the model.",
      schema: { type: 'string' },
    },
  },
  returnMode: {
    name: 'Periscope-Return',
    read(request, _principal, into) {
      const value = request.headers['periscope-return'];
      if (value === undefined) return;
      // Exactly one of the values, as the OpenAPI enum says: a near miss ('OUTPUT', 'output, data') is refused.
      const mode = typeof value === 'string' ? value : '';
      if (!(RETURN_MODES as readonly string[]).includes(mode)) {
        throw new GatewayError(
          400,
          'BAD_REQUEST',
          `the Periscope-Return header must be one of: ${RETURN_MODES.join(', ')} (default both)`,
        );
      }
      into.returnMode = mode as ReturnMode;
    },
    doc: {
      description:
        'What of the ToolResult to send. `both` (default): `output` (what a model reads) and `data` (what a ' +
        'program reads). `output`: `data` without its `text`, the page text `output` already holds. `data`: ' +
        'no `output`.',
      schema: { type: 'string', enum: [...RETURN_MODES], default: 'both' },
    },
  },
} satisfies Record<string, HeaderParameter>;

export type HeaderName = keyof typeof HEADERS;

/** Reads and checks the headers a route declares; the first bad one is a 400. */
export function readHeaders(
  request: IncomingMessage,
  principal: Principal,
  names: readonly HeaderName[],
): RequestHeaders {
  const headers: RequestHeaders = {};
  for (const name of names) HEADERS[name].read(request, principal, headers);
  return headers;
}
