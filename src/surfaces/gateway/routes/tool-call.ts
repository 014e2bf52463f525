import type { EgressOptions } from '../../../egress/egress-check.ts';
import { PeriscopeError } from '../../../errors.ts';
import { stageEnd, stageStart } from '../../../stage-timing.ts';
import type { Tool } from '../../../tools/tool.ts';
import type { Principal } from '../auth.ts';
import { GatewayError, sendJsonText } from '../http-io.ts';
import type { Call, GatewayServices } from '../route.ts';
import { toolResultJson } from '../tool-result-json.ts';

/** POST /v1/tools/{name}: the tool's input in, its ToolResult out (200 for tool failures too). */
export function restToolCall(name: string) {
  return (call: Call, gateway: GatewayServices) =>
    runToolCall(call, gateway, toolNamed(gateway.restTools, name));
}

/** POST /v1/tools/{name} for a name that is no tool here: 404, naming the tools there are. */
export function unknownTool(call: Call, gateway: GatewayServices): never {
  throw noSuchTool(gateway.restTools, call.params.name);
}

/** The tool called `name`, or a 404 naming the tools there are (none when all are switched off). */
export function toolNamed(tools: ReadonlyMap<string, Tool>, name: string | undefined): Tool {
  const tool = tools.get(name ?? '');
  if (tool) return tool;
  throw noSuchTool(tools, name);
}

export function noSuchTool(tools: ReadonlyMap<string, Tool>, name: string | undefined): GatewayError {
  const names = [...tools.keys()].join(', ') || 'none (all switched off)';
  return new GatewayError(404, 'NOT_FOUND', `no tool '${(name ?? '').slice(0, 64)}' here; tools: ${names}`);
}

/**
 * Runs one tool call as the call's principal and answers it: the call is aborted if the client goes away, runs under the
 * key's egress narrowing and the request's task URLs, and a call the gateway never ran (its queue full, or
 * shutdown while it waited) is answered 503.
 */
export async function runToolCall(call: Call, gateway: GatewayServices, tool: Tool): Promise<void> {
  const { response, headers, principal } = call;
  const abort = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) abort.abort(new PeriscopeError('ABORTED', 'the client went away'));
  });
  const egress = withTaskUrls(keyEgress(principal), headers.taskUrls);
  stageEnd('parse-auth', call.started);
  const result = await tool.execute(call.body, {
    signal: abort.signal,
    agentId: principal.agent,
    ...(headers.session ? { sessionId: headers.session } : {}),
    ...(egress ? { egress } : {}),
  });
  if (response.destroyed) return;
  // A call that never ran (gateway.maxQueuedCalls full, or shutdown while it waited) is the gateway's business.
  const refusal = gateway.metrics.refusal(result);
  const serialising = stageStart();
  const json = toolResultJson(result, headers.returnMode ?? 'both');
  if (refusal === 'overloaded') sendJsonText(response, 503, json, { 'retry-after': '1' });
  else if (refusal === 'shutting-down')
    sendJsonText(response, 503, json, { 'retry-after': '1', connection: 'close' });
  else sendJsonText(response, 200, json);
  stageEnd('serialisation', serialising);
  stageEnd('call', call.started);
}

/**
 * A key's own egress narrowing (`keys create --allow-domain/--block-domain`, its session budget
 * `--session-max-calls/--session-max-credits`): narrows the deployment's.
 */
export function keyEgress(principal: Principal | undefined): EgressOptions | undefined {
  const domains = principal?.key?.domains;
  const budget = principal?.key?.session;
  if (!domains && !budget) return undefined;
  return { ...(domains ? { domains } : {}), ...(budget ? { budget } : {}) };
}

/** A key's egress options with the request's task URLs, or undefined when there is neither. */
function withTaskUrls(
  egress: EgressOptions | undefined,
  taskUrls: string[] | undefined,
): EgressOptions | undefined {
  if (taskUrls === undefined) return egress;
  return { ...egress, seenUrls: taskUrls };
}
