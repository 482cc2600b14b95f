import { createUser, waitFor, waitForRoute, type Created } from '@gw/testkit';
import { useRelayGateway, type RelayGateway } from './relay-fixture.js';

/** What the bill says of an account's usage. */
interface Bill {
  total_usage: { requests: number; prompt_tokens: number; completion_tokens: number; cost: number };
}

export interface AnthropicGateway extends RelayGateway {
  /** Adds a key of provider type anthropic (its Provider the mock) through POST /x-keys. */
  addAnthropicKey: (level: number, secretKey: string) => Promise<number>;
  /** One Level of anthropic keys; `model` is routed there. */
  anthropicLevel: (level: number, model: string, secrets: string[]) => Promise<number[]>;
  /** A fresh subaccount with credit, its bill read from /dashboard/bill. */
  tenant: (extra?: Record<string, unknown>) => Promise<Created>;
  /** Waits until the account's bill shows `requests` calls; answers the bill. */
  billOf: (user: Created, requests: number) => Promise<Bill>;
  /** Waits until `count` usage events name the key. */
  waitForUsage: (keyId: number, count: number) => Promise<void>;
}

/** The relay gateway (the proxy, its front door → mock upstream), with anthropic keys and bills. */
export function useAnthropicGateway(): AnthropicGateway {
  const relay = useRelayGateway() as AnthropicGateway;
  relay.addAnthropicKey = (level, secretKey) =>
    relay.addKey(level, secretKey, relay.mock.url, { provider_type: 'anthropic' });
  relay.anthropicLevel = async (level, model, secrets) => {
    const ids: number[] = [];
    for (const secret of secrets) {
      ids.push(await relay.addAnthropicKey(level, secret));
    }
    await relay.configure({ LEVEL_MAPPER: `${model}=${level}` });
    await waitForRoute(relay.gw, model, level, ids);
    return ids;
  };
  relay.tenant = (extra = {}) => createUser(relay.gw, { credit: 5, extra });
  relay.billOf = async (user, requests) => {
    const bill = async () =>
      (await (await relay.gw.request('/dashboard/bill', { key: user.key })).json()) as Bill;
    await waitFor(async () => (await bill()).total_usage.requests === requests, `${requests} calls billed`);
    return bill();
  };
  relay.waitForUsage = (keyId, count) =>
    waitFor(async () => relay.usageFor(keyId).length === count, `${count} usage events`, 5_000, 20);
  return relay;
}
