import { inputJsonSchema } from '../../tools/input-json-schema.ts';
import type { Tool } from '../../tools/tool.ts';
import type { Route, RouteDoc } from './route.ts';
import { agentLedger, grantCredits, listBalances } from './routes/admin-credits.ts';
import { createKey, listKeys, revokeKey, setKeyRate } from './routes/admin-keys.ts';
import {
  consoleCall,
  consoleCalls,
  consoleEvents,
  consoleFetchChain,
  consoleOverview,
  consolePlay,
  playgroundPrincipal,
  unknownPlaygroundTool,
} from './routes/console-api.ts';
import { consoleStatic, favicon } from './routes/console-static.ts';
import { health } from './routes/health.ts';
import { mcp, toolCallsIn } from './routes/mcp.ts';
import { metrics } from './routes/metrics.ts';
import { openApiJson } from './routes/openapi-json.ts';
import { status } from './routes/status.ts';
import { restToolCall, unknownTool } from './routes/tool-call.ts';
import { toolList } from './routes/tool-list.ts';

/**
 * The gateway's routes: the only place a route is declared. The router (router.ts) serves exactly these, applying
 * each one's declared steps, and /openapi.json (openapi.ts) documents exactly these.
 */
export function routeTable(tools: readonly Tool[]): Route[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      access: 'public', // for load balancers and orchestrators: no key, even when keys are required elsewhere
      hostCheck: 'never',
      doc: operation('health', 'operations', 'Liveness: 200 while serving, 503 while shutting down.', {
        '200': { description: '{ status: "ok" }' },
      }),
      handle: health,
    },
    {
      method: 'GET',
      path: '/openapi.json',
      access: 'public',
      hostCheck: 'never',
      doc: operation('openApi', 'operations', 'This document: OpenAPI 3.1, generated from the route table.', {
        '200': { description: 'The OpenAPI document.', content: { 'application/json': {} } },
      }),
      handle: openApiJson,
    },
    {
      method: 'GET',
      path: '/v1/tools',
      access: 'agent',
      hostCheck: 'open-mode',
      doc: operation('listTools', 'tools', 'The enabled tools with their input JSON Schemas.', {
        '200': { description: '{ tools: [{ name, description, inputSchema }] }' },
      }),
      handle: toolList,
    },
    ...tools.map((tool) => toolCallRoute('/v1/tools', tool, restToolCall(tool.name))),
    {
      method: 'POST',
      path: '/v1/tools/:name',
      label: 'other',
      access: 'agent',
      hostCheck: 'open-mode',
      doc: { undocumented: 'a name that is no tool here: 404, naming the tools there are' },
      handle: unknownTool,
    },
    ...(['POST', 'GET', 'DELETE'] as const).map(
      (method): Route => ({
        method,
        path: '/mcp',
        access: 'agent',
        hostCheck: 'always',
        relay: true,
        ...(method === 'POST' ? { body: 'json-rpc', rateCost: toolCallsIn } : {}),
        ...(method === 'GET' ? { stream: true } : {}),
        doc: MCP_DOCS[method],
        handle: mcp,
      }),
    ),
    {
      method: 'GET',
      path: '/v1/status',
      access: 'agent',
      hostCheck: 'open-mode',
      doc: operation(
        'status',
        'operations',
        "The caller's agent: usage and credits; the search providers' health.",
        {
          '200': { description: 'Status JSON.' },
        },
      ),
      handle: status,
    },
    {
      method: 'GET',
      path: '/metrics',
      access: 'agent',
      hostCheck: 'open-mode',
      doc: operation('metrics', 'operations', 'Prometheus metrics (text exposition format 0.0.4).', {
        '200': { description: 'Prometheus text.', content: { 'text/plain': {} } },
      }),
      handle: metrics,
    },
    ...adminRoutes(),
    ...consoleRoutes(tools),
  ];
}

/**
 * POST `{prefix}/{tool}`: one route per tool, so that an unknown name is refused before its body is read, and each
 * tool is documented with its input schema and counted under its own label.
 */
function toolCallRoute(prefix: string, tool: Tool, handle: Route['handle']): Route {
  const rest = prefix === '/v1/tools';
  return {
    method: 'POST',
    path: `${prefix}/${tool.name}`,
    access: 'agent',
    hostCheck: 'open-mode',
    headers: ['session', 'taskUrls', 'returnMode'],
    body: 'json',
    rateCost: () => 1,
    doc: {
      operationId: rest ? tool.name : `play_${tool.name}`,
      summary: firstSentence(tool.description),
      description: tool.description,
      tags: [rest ? 'tools' : 'console'],
      requestBody: { required: true, content: { 'application/json': { schema: inputJsonSchema(tool) } } },
      responses: {
        '200': {
          description:
            'The ToolResult, for successes and tool failures alike (isError: true, data.error.code says why).',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolResult' } } },
        },
      },
    },
    handle,
  };
}

/** /v1/admin/keys and /v1/admin/credits: admin keys only. */
function adminRoutes(): Route[] {
  const admin = { access: 'admin', hostCheck: 'open-mode' } as const;
  const withBody = { ...admin, body: 'json' } as const;
  const ok = (description: string) => ({ '200': { description } });
  return [
    {
      method: 'GET',
      path: '/v1/admin/keys',
      ...admin,
      doc: operation('listKeys', 'admin', 'Every API key, without its hash.', ok('{ keys: [...] }')),
      handle: listKeys,
    },
    {
      method: 'POST',
      path: '/v1/admin/keys',
      ...withBody,
      doc: operation(
        'createKey',
        'admin',
        'Creates a key: { agent, admin?, credits?, rate?, allowDomains?, blockDomains?, session?, note? }.',
        { '201': { description: '{ key, record, balance }: the key itself is shown only here.' } },
        jsonBody,
      ),
      handle: createKey,
    },
    {
      method: 'PATCH',
      path: '/v1/admin/keys/:id',
      ...withBody,
      doc: operation(
        'setKeyRate',
        'admin',
        'Sets a key\'s rate: { rate: "60/min" }, or null to remove it.',
        ok('{ key }'),
        jsonBody,
      ),
      handle: setKeyRate,
    },
    {
      method: 'DELETE',
      path: '/v1/admin/keys/:id',
      ...admin,
      doc: operation('revokeKey', 'admin', 'Revokes a key, at once (404 when there is no such key).', {
        ...ok('{ revoked }'),
        '404': ERROR,
      }),
      handle: revokeKey,
    },
    {
      method: 'GET',
      path: '/v1/admin/credits',
      ...admin,
      doc: operation('listBalances', 'admin', "Every agent's credit balance.", ok('{ accounts: [...] }')),
      handle: listBalances,
    },
    {
      method: 'POST',
      path: '/v1/admin/credits',
      ...withBody,
      doc: operation(
        'grantCredits',
        'admin',
        'Grants credits: { agent, amount, reason? }.',
        ok('{ agent, balance, entry }'),
        jsonBody,
      ),
      handle: grantCredits,
    },
    {
      method: 'GET',
      path: '/v1/admin/credits/:agent',
      ...admin,
      doc: operation(
        'agentLedger',
        'admin',
        "An agent's balance and its newest ledger entries (?limit=, default 100).",
        ok('{ agent, balance, ledger }'),
      ),
      handle: agentLedger,
    },
  ];
}

/** The operator console: its page and files, and its API (an admin key, or open mode), Host and Origin always checked. */
function consoleRoutes(tools: readonly Tool[]): Route[] {
  const page = {
    method: ['GET', 'HEAD'],
    access: 'public',
    hostCheck: 'always',
    handle: consoleStatic,
  } as const;
  const api = { method: 'GET', access: 'operator', hostCheck: 'always' } as const;
  const json = (description: string) => ({ '200': { description } });
  return [
    { ...page, path: '/console', doc: operation('console', 'console', 'The operator console.', HTML) },
    {
      method: ['GET', 'HEAD'],
      path: '/favicon.ico',
      access: 'public',
      hostCheck: 'never', // an icon, the same for everyone: nothing a rebinding page could learn from it
      doc: operation('favicon', 'console', "The console's icon (SVG), cacheable.", {
        '200': { description: 'The icon.', content: { 'image/svg+xml': {} } },
      }),
      handle: favicon,
    },
    {
      ...page,
      path: '/console/*',
      doc: operation('consoleFile', 'console', 'A console file (scripts, styles).', HTML),
    },
    {
      ...api,
      path: '/v1/admin/console/events',
      stream: true,
      doc: operation(
        'consoleEvents',
        'console',
        'Server-sent events: each recent call as it ends (resumes after Last-Event-ID).',
        {
          '200': { description: 'An event stream.', content: { 'text/event-stream': {} } },
        },
      ),
      handle: consoleEvents,
    },
    {
      ...api,
      path: '/v1/admin/console/calls',
      doc: operation('consoleCalls', 'console', 'The recent calls, in brief.', json('{ calls: [...] }')),
      handle: consoleCalls,
    },
    {
      ...api,
      path: '/v1/admin/console/calls/:id',
      doc: operation(
        'consoleCall',
        'console',
        'One recent call with its input and result as the model saw it.',
        {
          ...json('The call.'),
          '404': ERROR,
        },
      ),
      handle: consoleCall,
    },
    {
      ...api,
      path: '/v1/admin/console/overview',
      doc: operation(
        'consoleOverview',
        'console',
        "Per-minute counts of the last hour or day (?window=hour|day), calls running and queued, today's usage.",
        json('The overview.'),
      ),
      handle: consoleOverview,
    },
    {
      ...api,
      path: '/v1/admin/console/fetch-chain',
      doc: operation(
        'consoleFetchChain',
        'console',
        'The web_fetch back-ends in order, and how calls met them.',
        json('{ backends: [...] }'),
      ),
      handle: consoleFetchChain,
    },
    // The playground: a real tool call as key {keyId} would make it (its agent, rate, domains, session budget).
    ...tools.map((tool) => ({
      ...toolCallRoute('/v1/admin/console/as/:keyId/tools', tool, consolePlay(tool.name)),
      access: 'operator' as const,
      hostCheck: 'always' as const,
      runAs: playgroundPrincipal,
    })),
    {
      method: 'POST',
      path: '/v1/admin/console/as/:keyId/tools/:tool',
      label: 'other',
      access: 'operator',
      hostCheck: 'always',
      doc: { undocumented: 'a name that is no tool here: 404, naming the tools there are' },
      handle: unknownPlaygroundTool,
    },
  ];
}

const ERROR = { $ref: '#/components/responses/GatewayError' };
const HTML = { '200': { description: 'The file.', content: { 'text/html': {} } } };
const jsonBody = { required: true, content: { 'application/json': { schema: { type: 'object' } } } };

const MCP_DOCS = {
  POST: operation(
    'mcpPost',
    'mcp',
    'MCP Streamable HTTP: a JSON-RPC message or batch (initialize, tools/list, tools/call, …).',
    {
      '200': {
        description: 'The JSON-RPC answer, as JSON or as an event stream.',
        content: { 'application/json': {}, 'text/event-stream': {} },
      },
      '202': { description: 'Accepted (a notification or a response).' },
    },
    jsonBody,
  ),
  GET: operation('mcpStream', 'mcp', "MCP Streamable HTTP: the session's server-to-client event stream.", {
    '200': { description: 'An event stream.', content: { 'text/event-stream': {} } },
  }),
  DELETE: operation('mcpEnd', 'mcp', 'MCP Streamable HTTP: ends the session (Mcp-Session-Id).', {
    '200': { description: 'The session is ended.' },
  }),
};

function operation(
  operationId: string,
  tag: string,
  summary: string,
  responses: Record<string, unknown>,
  requestBody?: Record<string, unknown>,
): RouteDoc {
  return { operationId, summary, tags: [tag], responses, ...(requestBody ? { requestBody } : {}) };
}

function firstSentence(text: string): string {
  const end = text.search(/[.:](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}
