import { sendJson } from '../http-io.ts';
import type { Call, GatewayServices } from '../route.ts';

/** GET /v1/tools: the enabled tools with their input JSON Schemas. */
export function toolList(call: Call, gateway: GatewayServices): void {
  sendJson(call.response, 200, {
    tools: gateway.periscope.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.jsonSchema,
    })),
  });
}
