import { sendText } from '../http-io.ts';
import { buildOpenApi } from '../openapi.ts';
import type { Call, GatewayServices } from '../route.ts';

const documents = new WeakMap<GatewayServices, string>();

/** GET /openapi.json: the OpenAPI document of the route table, built once per gateway. */
export function openApiJson(call: Call, gateway: GatewayServices): void {
  let document = documents.get(gateway);
  if (document === undefined) {
    document = JSON.stringify(buildOpenApi(gateway.routes, gateway.version), null, 2);
    documents.set(gateway, document);
  }
  sendText(call.response, 200, document, 'application/json; charset=utf-8');
}
