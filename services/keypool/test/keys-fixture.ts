import { createGrpcClient, type PromiseClient } from '@gw/kit';
import { keypool } from '@gw/proto';
import {
  createTestDatabase,
  keyTestEnv,
  randomSecret,
  startGateway,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, expect } from 'vitest';

/** A provider key as the edge answers it. */
export interface KeyRecord {
  ID: number;
  Name: string;
  Level: number;
  Provider: string;
  SecretKey: string;
  Status: boolean;
  Config: Record<string, unknown>;
}

export const PEM =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n';

export interface KeysGateway {
  gw: Gateway;
  database: TestDatabase;
  /** keypool's gRPC API, as the edge and a tenant owner's calls reach it. */
  client: PromiseClient<keypool.KeypoolServiceClient>;
  /** Every event on `gw.>`, as `<subject> <payload>`. */
  seen: string[];
  /** Every secret a test sent, so later checks can look for it in rows, events and logs. */
  secrets: string[];
  rootOwner: bigint;
  createKey: (json: Record<string, unknown>) => Promise<Response>;
  addKey: (fields?: Record<string, unknown>) => Promise<{ secret: string; key: KeyRecord }>;
  list: (path: string) => Promise<{ response: Response; keys: KeyRecord[] }>;
}

/**
 * Starts a gateway for the calling test file (in `beforeAll`, stopped in `afterAll`) and answers
 * the handle its tests use; `gw`, `database`, `client` and `rootOwner` are set once it started.
 */
export function useKeysGateway(): KeysGateway {
  let nc: NatsConnection | undefined;
  const kp = {
    seen: [] as string[],
    secrets: [] as string[],
    createKey: async (json: Record<string, unknown>) => kp.gw.request('/x-keys', { method: 'POST', json }),
    addKey: async (fields: Record<string, unknown> = {}) => {
      const secret = randomSecret();
      kp.secrets.push(secret);
      const response = await kp.createKey({
        SecretKey: secret,
        Level: 1,
        Provider: 'https://api.example.com/v1',
        ...fields,
      });
      expect(response.status).toBe(200);
      return { secret, key: ((await response.json()) as { Key: KeyRecord }).Key };
    },
    list: async (path: string) => {
      const response = await kp.gw.request(path);
      expect(response.status).toBe(200);
      return { response, keys: ((await response.json()) as { success: boolean; keys: KeyRecord[] }).keys };
    },
  } as KeysGateway;

  beforeAll(async () => {
    kp.database = await createTestDatabase();
    kp.gw = await startGateway({ databaseUrl: kp.database.url, env: keyTestEnv() });
    kp.client = createGrpcClient(
      keypool.KeypoolServiceClient,
      kp.gw.env.KEYPOOL_ADDR ?? '',
      kp.gw.env.GW_INTERNAL_TOKEN ?? '',
    );
    nc = await connect({ servers: kp.gw.natsUrl });
    const subscription = nc.subscribe('gw.>');
    void (async () => {
      for await (const message of subscription) {
        kp.seen.push(`${message.subject} ${new TextDecoder().decode(message.data)}`);
      }
    })();
    const me = (await (await kp.gw.request('/dashboard/status')).json()) as { id: number };
    kp.rootOwner = BigInt(me.id);
  });

  afterAll(async () => {
    (kp.client as KeysGateway['client'] | undefined)?.close();
    await nc?.drain();
    await (kp.gw as Gateway | undefined)?.stop();
    await (kp.database as TestDatabase | undefined)?.drop();
  });

  return kp;
}
