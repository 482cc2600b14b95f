import type { Gateway } from './gateway.js';
import { waitFor } from './ports.js';

interface RouteView {
  Level: number | null;
  Keys: Array<{ ID: number }>;
}

/**
 * Waits until the proxy routes `model` to `level` over exactly `keyIds` (GET /x-route plans from
 * the pool a call uses): key and config changes reach that pool as events, so from then on a
 * call sees them.
 */
export async function waitForRoute(
  gw: Gateway,
  model: string,
  level: number,
  keyIds: number[],
): Promise<void> {
  const wanted = [...keyIds].sort((a, b) => a - b).join(',');
  await waitFor(async () => {
    const response = await gw.request(`/x-route?model=${encodeURIComponent(model)}`);
    if (response.status !== 200) {
      return false;
    }
    const route = (await response.json()) as RouteView;
    const keys = route.Keys.map((key) => key.ID).sort((a, b) => a - b);
    return route.Level === level && keys.join(',') === wanted;
  }, `the proxy routing ${model} to Level ${level}`);
}
