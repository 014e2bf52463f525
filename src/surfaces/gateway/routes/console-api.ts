import { listApiKeys } from '../../../keys/api-keys.ts';
import type { Principal } from '../auth.ts';
import { type StatsWindow, WINDOWS } from '../call-stats.ts';
import { GatewayError, sendJson } from '../http-io.ts';
import { type Console, callSummary, SECURITY_HEADERS } from '../operator-console.ts';
import type { Call, GatewayServices } from '../route.ts';
import { noSuchTool, runToolCall, toolNamed } from './tool-call.ts';

// /v1/admin/console/*: the operator console's API (an admin key, or open mode; the router checks that and Host/Origin).

function consoleOf(gateway: GatewayServices): Console {
  if (!gateway.console)
    throw new GatewayError(404, 'NOT_FOUND', 'the console is off (gateway.console.enabled)');
  return gateway.console;
}

/** GET events: server-sent events, each recent call as it ends. */
export function consoleEvents(call: Call, gateway: GatewayServices): void {
  consoleOf(gateway).openStream(call.request, call.response);
}

/** GET calls: the recent calls in brief. */
export function consoleCalls(call: Call, gateway: GatewayServices): void {
  const calls = consoleOf(gateway).recent.list().map(callSummary);
  sendJson(call.response, 200, { calls }, SECURITY_HEADERS);
}

/** GET calls/{id}: one call with its input and its result as the model saw it. */
export async function consoleCall(call: Call, gateway: GatewayServices): Promise<void> {
  const id = /^\d{1,16}$/.test(call.params.id ?? '') ? Number(call.params.id) : undefined;
  const found = id === undefined ? undefined : await consoleOf(gateway).call(id);
  if (!found) throw new GatewayError(404, 'NOT_FOUND', 'no such recent call (it may have aged out)');
  sendJson(call.response, 200, found, SECURITY_HEADERS);
}

/** GET overview?window=hour|day: per-minute counts, the calls running and queued now, today's usage. */
export async function consoleOverview(call: Call, gateway: GatewayServices): Promise<void> {
  const operatorConsole = consoleOf(gateway);
  const asked = call.query.get('window') ?? 'hour';
  if (!(asked in WINDOWS)) {
    throw new GatewayError(400, 'BAD_REQUEST', `window must be one of: ${Object.keys(WINDOWS).join(', ')}`);
  }
  const gauges = await operatorConsole.gauges();
  const overview = {
    ...operatorConsole.stats.query(asked as StatsWindow),
    inFlight: gauges.inFlight,
    queued: gauges.queued,
    recentCallsKept: operatorConsole.recent.capacity,
    today: await gateway.periscope.usage(),
  };
  sendJson(call.response, 200, overview, SECURITY_HEADERS);
}

/** GET fetch-chain: the web_fetch back-ends in order, whether each can be used, and how calls met them. */
export async function consoleFetchChain(call: Call, gateway: GatewayServices): Promise<void> {
  const health = consoleOf(gateway).fetchHealth.snapshot();
  const { fetchBackends } = await gateway.periscope.status();
  const backends = fetchBackends.map((backend) => ({ ...backend, health: health[backend.id] ?? null }));
  sendJson(call.response, 200, { backends }, SECURITY_HEADERS);
}

/**
 * The playground's "run as" (the route's `runAs` step): the principal a real call with key `keyId` runs as (its
 * agent, its rate, its domains and session budget). A revoked or unknown key is refused: a call with it would be.
 */
export async function playgroundPrincipal(call: Call, gateway: GatewayServices): Promise<Principal> {
  consoleOf(gateway);
  const keyId = call.params.keyId ?? '';
  const key = (await listApiKeys(gateway.store)).find((record) => record.id === keyId);
  if (!key) throw new GatewayError(404, 'NOT_FOUND', `no key ${keyId.slice(0, 64)}; see /v1/admin/keys`);
  if (key.revokedAt) {
    throw new GatewayError(
      400,
      'BAD_REQUEST',
      `key ${key.id} was revoked (its calls are refused); pick an active key`,
    );
  }
  return { agent: key.agent, admin: key.admin, key };
}

/** POST as/{keyId}/tools/{tool}: the playground, a real call as that key, counted apart (surface `console`). */
export function consolePlay(name: string) {
  // Its runAs step (playgroundPrincipal) has already refused a console that is off.
  return (call: Call, gateway: GatewayServices) =>
    runToolCall(call, gateway, toolNamed(gateway.consoleTools, name));
}

/** POST as/{keyId}/tools/{tool} for a name that is no tool here: 404, naming the tools there are. */
export function unknownPlaygroundTool(call: Call, gateway: GatewayServices): never {
  throw noSuchTool(gateway.consoleTools, call.params.tool);
}
