import { inputJsonSchema } from '../../tools/input-json-schema.ts';
import type { Tool } from '../../tools/tool.ts';

/** OpenAPI 3.1 for the gateway, generated from the tools' JSON Schemas (draft 2020-12, OpenAPI 3.1's dialect). */
export function buildOpenApi(tools: readonly Tool[], version: string): Record<string, unknown> {
  const error = { $ref: '#/components/responses/GatewayError' };
  const secured = { security: [{ bearer: [] }] };
  // Node answers it on every route, before the gateway sees the request: no body.
  const headTooLarge = { $ref: '#/components/responses/HeadTooLarge' };
  const paths: Record<string, unknown> = {};
  for (const tool of tools) {
    const schema = inputJsonSchema(tool);
    paths[`/v1/tools/${tool.name}`] = {
      post: {
        operationId: tool.name,
        summary: firstSentence(tool.description),
        description: tool.description,
        tags: ['tools'],
        ...secured,
        parameters: [
          { $ref: '#/components/parameters/Session' },
          { $ref: '#/components/parameters/TaskUrls' },
          { $ref: '#/components/parameters/Return' },
        ],
        requestBody: { required: true, content: { 'application/json': { schema } } },
        responses: {
          '200': {
            description:
              'The ToolResult, for successes and tool failures alike (isError: true, data.error.code says why).',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ToolResult' } } },
          },
          '400': error,
          '401': error,
          '413': error,
          '415': error,
          '429': error,
          '431': headTooLarge,
        },
      },
    };
  }
  paths['/v1/tools'] = {
    get: {
      operationId: 'listTools',
      summary: 'The enabled tools with their input JSON Schemas.',
      tags: ['tools'],
      ...secured,
      responses: {
        '200': { description: '{ tools: [{ name, description, inputSchema }] }' },
        '401': error,
        '431': headTooLarge,
      },
    },
  };
  paths['/v1/status'] = {
    get: {
      operationId: 'status',
      summary: "The caller's agent: usage and credits; and the search providers' health.",
      tags: ['operations'],
      ...secured,
      responses: { '200': { description: 'Status JSON.' }, '401': error, '431': headTooLarge },
    },
  };
  paths['/healthz'] = {
    get: {
      operationId: 'health',
      summary: 'Liveness: 200 while serving, 503 while shutting down.',
      tags: ['operations'],
      security: [], // for load balancers and orchestrators: no key, even when keys are required elsewhere
      responses: { '200': { description: '{ status: "ok" }' }, '431': headTooLarge, '503': error },
    },
  };
  paths['/metrics'] = {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics (text exposition format 0.0.4).',
      tags: ['operations'],
      ...secured,
      responses: {
        '200': { description: 'Prometheus text.', content: { 'text/plain': {} } },
        '401': error,
        '431': headTooLarge,
      },
    },
  };
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
        'MCP clients use the Streamable HTTP endpoint at /mcp instead.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key from `periscope keys create`.' },
      },
      parameters: {
        Session: {
          name: 'Periscope-Session',
          in: 'header',
          required: false,
          description:
            "Groups the agent's calls into one session (one agent turn), the scope of the repeated-lookup " +
            'throttle. Without it each call is its own session, which the throttle never refuses.',
          schema: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,128}$' },
        },
        TaskUrls: {
          name: 'Periscope-Task-Urls',
          in: 'header',
          required: false,
          description:
            "The task's own URLs (the user's question, documents it names), separated by spaces, at most 100: " +
            'under egress.seenUrlsOnly web_fetch may read them, and with Periscope-Session they join the ' +
            "session's seen URLs. Set by the client program, never by the model.",
          schema: { type: 'string' },
        },
        Return: {
          name: 'Periscope-Return',
          in: 'header',
          required: false,
          description:
            "What the ToolResult carries. `both` (default): everything; a fetched page's text is then sent twice, " +
            'in `output` (for a model) and in `data.text` (for a program). `output`: without `data.text` (every ' +
            'other field of `data` kept). `data`: without `output`. Any other value is a 400.',
          schema: { type: 'string', enum: ['both', 'output', 'data'], default: 'both' },
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
                'What the model reads; fetched content is wrapped in an untrusted-content envelope. Always ' +
                'present, except when the call asked for `Periscope-Return: data`.',
            },
            data: {
              type: 'object',
              description:
                'Structured payload; on failure { error: { code, message, retryable, … } }. With ' +
                '`Periscope-Return: output`, without its `text` (the text is in `output`).',
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
        HeadTooLarge: {
          description: 'The request line and headers are larger than gateway.maxHeaderBytes.',
        },
      },
    },
  };
}

function firstSentence(text: string): string {
  const end = text.search(/[.:](\s|$)/);
  return end === -1 ? text : text.slice(0, end + 1);
}
