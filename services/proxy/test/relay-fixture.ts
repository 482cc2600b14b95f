import { randomBytes } from 'node:crypto';
import { REQUEST_ID_HEADER, SUBJECTS } from '@gw/kit';
import { events } from '@gw/proto';
import { startGateway, type Gateway, MockUpstream, waitForRoute } from '@gw/testkit';
import { connect, type NatsConnection } from 'nats';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

export interface RelayGateway {
  gw: Gateway;
  mock: MockUpstream;
  /** Connected to the gateway's nats-server, for the tests that listen to more subjects. */
  nc: NatsConnection;
  /** The root account's id: the owner of every key the tests add. */
  rootId: number;
  /** The official `openai` SDK, calling the edge with the root key. */
  client: OpenAI;
  /** Every gw.usage.recorded event so far. */
  usage: events.UsageRecorded[];
  /** The request id each gw.usage.recorded event's header carries, by event id. */
  usageRequestIds: Map<string, string>;
  /** An upstream secret no other test uses, named for its test. */
  secret: (name: string) => string;
  /** Adds a provider key through POST /x-keys (deleted after the test); answers its id. */
  addKey: (
    level: number,
    secretKey: string,
    provider?: string,
    config?: Record<string, unknown>,
  ) => Promise<number>;
  /** PUT /x-config with these values. */
  configure: (values: Record<string, string>) => Promise<void>;
  /** One Level with the given keys; `model` is routed there. */
  level: (
    level: number,
    model: string,
    keys: Array<{ secret: string; provider?: string }>,
    config?: Record<string, string>,
  ) => Promise<number[]>;
  usageFor: (keyId: number) => events.UsageRecorded[];
}

/**
 * Edge → proxy → mock upstream, every process real, started for the calling test file (in
 * `beforeAll`, stopped in `afterAll`). Keys are created through POST /x-keys and routing through
 * PUT /x-config, so the proxy reads its pool from the keypool snapshot and the config service and
 * reloads on gw.keys.changed / gw.config.updated. Each test gets its own Level, models and keys, so
 * round robin and sleeping state never leak between tests. `gw`, `mock`, `nc`, `rootId` and
 * `client` are set once the gateway started.
 */
export function useRelayGateway(): RelayGateway {
  const created: number[] = [];

  const relay = {
    usage: [] as events.UsageRecorded[],
    usageRequestIds: new Map<string, string>(),
    secret: (name: string) => `${name}-${randomBytes(12).toString('hex')}`,
    async addKey(
      level: number,
      secretKey: string,
      provider = relay.mock.url,
      config?: Record<string, unknown>,
    ): Promise<number> {
      const response = await relay.gw.request('/x-keys', {
        method: 'POST',
        json: { SecretKey: secretKey, Level: level, Provider: provider, ...(config && { Config: config }) },
      });
      expect(response.status, await response.clone().text()).toBe(200);
      const id = ((await response.json()) as { Key: { ID: number } }).Key.ID;
      created.push(id);
      return id;
    },
    async configure(values: Record<string, string>): Promise<void> {
      const response = await relay.gw.request('/x-config', { method: 'PUT', json: values });
      expect(response.status, await response.clone().text()).toBe(200);
    },
    async level(
      level: number,
      model: string,
      keys: Array<{ secret: string; provider?: string }>,
      config: Record<string, string> = {},
    ) {
      const ids: number[] = [];
      for (const key of keys) {
        ids.push(await relay.addKey(level, key.secret, key.provider));
      }
      await relay.configure({ LEVEL_MAPPER: `${model}=${level}`, ...config });
      await waitForRoute(relay.gw, model, level, ids);
      return ids;
    },
    usageFor: (keyId: number) => relay.usage.filter((event) => event.keyId === BigInt(keyId)),
  } as RelayGateway;

  beforeAll(async () => {
    relay.mock = await MockUpstream.start();
    relay.gw = await startGateway({
      env: {
        GW_PUBLIC_URL: 'https://gateway.example.test',
        GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:`,
        PROXY_UPSTREAM_TIMEOUT_MS: '1500',
        PROXY_ANSWER_TIMEOUT_MS: '1500',
        PROXY_USAGE_GRACE_MS: '300',
        PROXY_LEVEL_COOLDOWN_MS: '1500',
        PROXY_PROBE_INTERVAL_MS: '2000',
      },
    });
    relay.nc = await connect({ servers: relay.gw.natsUrl });
    const sub = relay.nc.subscribe(SUBJECTS.usageRecorded);
    void (async () => {
      for await (const msg of sub) {
        const event = events.UsageRecorded.fromJSON(JSON.parse(new TextDecoder().decode(msg.data)));
        relay.usageRequestIds.set(event.eventId, msg.headers?.get(REQUEST_ID_HEADER) ?? '');
        relay.usage.push(event);
      }
    })();
    const me = (await (await relay.gw.request('/dashboard/status')).json()) as { id: number };
    relay.rootId = me.id;
    relay.client = new OpenAI({ apiKey: relay.gw.rootKey, baseURL: `${relay.gw.baseUrl}/v1`, maxRetries: 0 });
  });

  // Each test leaves an empty pool behind, so Levels can be reused (the next test waits until the
  // proxy routes its model over exactly its own keys).
  afterEach(async () => {
    for (const id of created.splice(0)) {
      expect((await relay.gw.request(`/x-keys/${id}`, { method: 'DELETE' })).status).toBe(200);
    }
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await (relay.nc as NatsConnection | undefined)?.drain();
    await (relay.gw as Gateway | undefined)?.stop();
    await (relay.mock as MockUpstream | undefined)?.stop();
  });

  return relay;
}
