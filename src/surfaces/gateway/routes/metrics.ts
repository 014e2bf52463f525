import { sendText } from '../http-io.ts';
import type { Call, GatewayServices } from '../route.ts';

/** GET /metrics: Prometheus text of this process, and under `serve --workers N` of the other workers too. */
export async function metrics(call: Call, gateway: GatewayServices): Promise<void> {
  const others = (await gateway.sharedMetrics?.gather()) ?? [];
  const text = await gateway.metrics.render(gateway.periscope, others);
  sendText(call.response, 200, text, 'text/plain; version=0.0.4; charset=utf-8');
}
