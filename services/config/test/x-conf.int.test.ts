import { createGrpcClient, type PromiseClient } from '@gw/kit';
import { keypool } from '@gw/proto';
import {
  createTestDatabase,
  createUser,
  expectError,
  keyTestEnv,
  putKeyToSleep,
  randomSecret,
  startGateway,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Overview {
  Resources: Record<string, unknown>;
  LevelMapper: Record<string, unknown>;
  ModelMapper: Record<string, unknown>;
  ModelFailover: Record<string, unknown>;
  ModelLimits: Record<string, unknown>;
  SwitchOver: Record<string, unknown>;
  SleepingKeys: Array<{ ID: number; SecretKey: string; SleepTimes: number; SleepRemaining: number }>;
  DisabledKeys: Array<{ ID: number; Status: boolean }>;
  UserMinBalance: number;
  UserApiBalance: number;
  LogEnable: boolean;
}

describe('owner overview and batch configuration (/x-conf), on PostgreSQL', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let client: PromiseClient<keypool.KeypoolServiceClient>;
  let rootId: bigint;

  const overview = async () => {
    const response = await gw.request('/x-conf');
    expect(response.status).toBe(200);
    return (await response.json()) as Overview;
  };
  const post = async (json: unknown) => gw.request('/x-conf', { method: 'POST', json });
  const addKey = async () => {
    const response = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: randomSecret(), Level: 1, Provider: 'https://api.example.com' },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { Key: { ID: number } }).Key.ID;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({
      databaseUrl: database.url,
      env: { ...keyTestEnv(), USER_MIN_BALANCE: '1.5', USER_API_BALANCE: '0.25' },
    });
    client = createGrpcClient(
      keypool.KeypoolServiceClient,
      gw.env.KEYPOOL_ADDR ?? '',
      gw.env.GW_INTERNAL_TOKEN ?? '',
    );
    rootId = BigInt(((await (await gw.request('/dashboard/status')).json()) as { id: number }).id);
  });

  afterAll(async () => {
    (client as typeof client | undefined)?.close();
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('shows an empty overview with the balances', async () => {
    expect(await overview()).toEqual({
      Resources: {},
      LevelMapper: {},
      ModelMapper: {},
      ModelFailover: {},
      ModelLimits: {},
      SwitchOver: {},
      SleepingKeys: [],
      DisabledKeys: [],
      UserMinBalance: 1.5,
      UserApiBalance: 0.25,
      LogEnable: true,
    });
  });

  it('applies mapper operations, resources and ModelLimits operations, echoing objects', async () => {
    let response = await post({
      ModelMapper: 'gpt-4=gpt-4o, o1=o1-mini',
      LevelMapper: 'gpt-4*=1',
      ModelFailover: 'gpt-4o=gpt-4o-mini',
      Resources: '/v1/chat/completions /v1/models',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      success: true,
      ModelMapper: { 'gpt-4': 'gpt-4o', o1: 'o1-mini' },
      LevelMapper: { 'gpt-4*': 1 },
      ModelFailover: { 'gpt-4o': ['gpt-4o-mini'] },
      Resources: { '/v1/chat/completions': true, '/v1/models': true },
    });
    response = await post({
      ModelMapper: '-o1',
      ModelLimits: { 'gpt-4o': { rpm: 10 }, 'o1-mini': { tpm: 5 } },
    });
    expect(await response.json()).toMatchObject({
      ModelMapper: { 'gpt-4': 'gpt-4o' },
      ModelLimits: { 'gpt-4o': { rpm: 10 }, 'o1-mini': { tpm: 5 } },
    });
    response = await post({ ModelLimits: { 'gpt-4o': { tpd: 100 } } });
    expect(await response.json()).toMatchObject({
      ModelLimits: { 'gpt-4o': { rpm: 10, tpd: 100 }, 'o1-mini': { tpm: 5 } },
    });
    response = await post({ ModelLimits: '-o1-mini' });
    expect(await response.json()).toMatchObject({ ModelLimits: { 'gpt-4o': { rpm: 10, tpd: 100 } } });
    expect((await overview()).ModelLimits).toEqual({ 'gpt-4o': { rpm: 10, tpd: 100 } });
    response = await post({ ModelLimits: '*' });
    expect(await response.json()).toMatchObject({ ModelLimits: {} });
    const after = await overview();
    expect(after).toMatchObject({
      ModelMapper: { 'gpt-4': 'gpt-4o' },
      LevelMapper: { 'gpt-4*': 1 },
      ModelLimits: {},
    });
    // The same values through /x-config.
    const configs = ((await (await gw.request('/x-config')).json()) as { configs: Record<string, unknown> })
      .configs;
    expect(configs).toMatchObject({ MODEL_MAPPER: { 'gpt-4': 'gpt-4o' }, RESOURCES: { '/v1/models': true } });
  });

  it('refuses malformed fields with 400 and applies nothing', async () => {
    const before = await overview();
    for (const body of [
      {},
      { ModelMapper: 'nonsense' },
      { ModelMapper: 'a=b', LevelMapper: 'x=high' },
      { ModelLimits: { m: { rpm: -1 } } },
      { ModelLimits: '-a,b' },
      { SwitchOver: '1=2' },
      { LoadKeys: 'yes' },
      { Resources: '../etc' },
    ]) {
      await expectError(await post(body), 400, 'invalid_request');
    }
    expect(await overview()).toEqual(before);
  });

  it('lists disabled and sleeping keys (with the remaining sleep, secrets masked) and wakes them with DelKeys', async () => {
    const disabled = await addKey();
    const sleepy = await addKey();
    expect((await gw.request(`/x-keys/${disabled}`, { method: 'PUT', json: { Status: false } })).status).toBe(
      200,
    );
    await putKeyToSleep(gw, { ownerId: rootId, keyId: sleepy, step: 1 });

    const view = await overview();
    expect(view.DisabledKeys.map((key) => key.ID)).toEqual([disabled]);
    expect(view.SleepingKeys).toHaveLength(1);
    expect(view.SleepingKeys[0]).toMatchObject({ ID: sleepy, SleepTimes: 1 });
    expect(view.SleepingKeys[0]?.SleepRemaining).toBeGreaterThan(290);
    expect(view.SleepingKeys[0]?.SleepRemaining).toBeLessThanOrEqual(300);
    expect(view.SleepingKeys[0]?.SecretKey).toMatch(/^\*{8}.{4}$/);

    const response = await post({ DelKeys: true });
    expect(await response.json()).toEqual({ success: true, DelKeys: 'true', WokenKeys: 1 });
    expect((await overview()).SleepingKeys).toEqual([]);
  });

  it('reloads keys with LoadKeys (a new pool version) and echoes the switches', async () => {
    const before = (await client.getSnapshot({ ownerId: rootId })).version;
    const response = await post({ LoadKeys: true, SaveCache: 'true', LogEnable: false });
    expect(await response.json()).toEqual({
      success: true,
      LoadKeys: 'true',
      SaveCache: 'true',
      LogEnable: 'false',
    });
    expect((await client.getSnapshot({ ownerId: rootId })).version).toBe(before + 1n);
  });

  it('refuses a non-owner with 403', async () => {
    const user = await createUser(gw, { name: 'confuser2' });
    await expectError(await gw.request('/x-conf', { key: user.key }), 403, 'forbidden');
    await expectError(
      await gw.request('/x-conf', { method: 'POST', key: user.key, json: { DelKeys: true } }),
      403,
      'forbidden',
    );
  });
});
