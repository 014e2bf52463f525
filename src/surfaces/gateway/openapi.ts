import { HEADERS } from './request-headers.ts';
import type { Method, Route, RouteDoc } from './route.ts';

/**
 * OpenAPI 3.1 for the gateway, from its route table: every documented route, with what its steps imply (the
 * security of its access, the headers it reads, its path parameters, the gateway's own error answers).
 */
export function buildOpenApi(routes: readonly Route[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if ('undocumented' in route.doc) continue;
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as readonly Method[];
    const path = route.path.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}');
    for (const method of methods) {
      if (method === 'HEAD' && methods.includes('GET')) continue; // HEAD answers as GET does, without the body
      paths[path] ??= {};
      (paths[path] as Record<string, unknown>)[method.toLowerCase()] = operation(route, route.doc, path);
    }
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Periscope gateway',
      version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Web search and fetch tools for LLM agents. Every well-formed tool call answers 200 with a ToolResult; ' +
        '4xx is only for the gateway itself (bad JSON, unknown tool, authentication, per-key limits). ' +
        'MCP clients use the Streamable HTTP endpoint at /mcp.',
    },
    servers: [{ url: '/' }],
    paths,
    components: COMPONENTS,
  };
}

function operation(route: Route, doc: RouteDoc, path: string): Record<string, unknown> {
  const error = { $ref: '#/components/responses/GatewayError' };
  const responses: Record<string, unknown> = { ...doc.responses };
  const add = (status: string, answer: unknown = error) => {
    responses[status] ??= answer;
  };
  if (route.headers || route.body) add('400');
  if (route.access !== 'public') add('401');
  if (route.access === 'admin' || route.access === 'operator' || route.hostCheck !== 'never') add('403');
  if (route.body) {
    add('413');
    add('415');
  }
  if (route.access !== 'public' || route.rateCost) add('429');
  add('431', { $ref: '#/components/responses/HeadTooLarge' }); // Node answers it on every route, with no body
  add('503');
  const pathParameters = [...path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const headerParameters = (route.headers ?? []).map((name) => ({
    name: HEADERS[name].name,
    in: 'header',
    required: false,
    ...HEADERS[name].doc,
  }));
  const parameters = [...pathParameters, ...headerParameters];
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    security: route.access === 'public' ? [] : [{ bearer: [] }],
    ...(route.access === 'admin' ? { 'x-periscope-access': 'an admin key' } : {}),
    ...(route.access === 'operator' ? { 'x-periscope-access': 'an admin key, or open mode' } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.requestBody ? { requestBody: doc.requestBody } : {}),
    responses,
  };
}

const COMPONENTS = {
  securitySchemes: {
    bearer: {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API key from `periscope keys create` (`--admin` for the admin routes). Without any key the gateway ' +
        'serves loopback only, unauthenticated ("open mode").',
    },
  },
  schemas: {
    ToolResult: {
      type: 'object',
      required: ['isError'],
      properties: {
        isError: { type: 'boolean' },
        output: {
          type: 'string',
          description:
            'What the model reads; fetched content is wrapped in an untrusted-content envelope. Absent when ' +
            'Periscope-Return is `data`.',
        },
        data: {
          type: 'object',
          description:
            'Structured payload; on failure { error: { code, message, retryable, … } }. With Periscope-Return ' +
            '`output` it has no `text` (the page text `output` holds).',
        },
        display: { type: 'string', description: 'One short line for people; not for the model.' },
      },
    },
    GatewayError: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
  },
  responses: {
    GatewayError: {
      description: 'A problem with the request itself, not with the tool call.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/GatewayError' } } },
    },
    HeadTooLarge: { description: 'The request line and headers are larger than gateway.maxHeaderBytes.' },
  },
};
