import { createGrpcClient, type PromiseClient } from '@gw/kit';
import { config as configPb } from '@gw/proto';
import {
  createTestDatabase,
  createUser,
  expectError,
  keyTestEnv,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface ConfigAnswer {
  success: boolean;
  oid: number;
  configs: Record<string, unknown>;
}

const EMAIL_PASS = 'smtp-password-Zx9!q-secret';

describe('owner configuration (/x-config)', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let client: PromiseClient<configPb.ConfigServiceClient>;
  let nc: NatsConnection;
  const seen: string[] = [];
  const auditSeen: string[] = [];
  let rootId: number;

  const get = async () => {
    const response = await gw.request('/x-config');
    expect(response.status).toBe(200);
    return (await response.json()) as ConfigAnswer;
  };
  const put = (json: unknown, method = 'PUT') => gw.request('/x-config', { method, json });
  const rows = async () =>
    JSON.stringify(
      await database.query('SELECT owner_id, key, value FROM config.owner_configs ORDER BY owner_id, key'),
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url, env: keyTestEnv() });
    client = createGrpcClient(
      configPb.ConfigServiceClient,
      gw.env.CONFIG_ADDR ?? '',
      gw.env.GW_INTERNAL_TOKEN ?? '',
    );
    nc = await connect({ servers: gw.natsUrl });
    const subscription = nc.subscribe('gw.config.updated.*');
    const audits = nc.subscribe('gw.audit.auto_config');
    void (async () => {
      for await (const message of audits) {
        auditSeen.push(new TextDecoder().decode(message.data));
      }
    })();
    void (async () => {
      for await (const message of subscription) {
        seen.push(`${message.subject} ${new TextDecoder().decode(message.data)}`);
      }
    })();
    rootId = ((await (await gw.request('/dashboard/status')).json()) as { id: number }).id;
  });

  afterAll(async () => {
    (client as typeof client | undefined)?.close();
    await (nc as NatsConnection | undefined)?.drain();
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('answers the defaults for every allowed key', async () => {
    const answer = await get();
    expect(answer).toMatchObject({ success: true, oid: rootId });
    expect(Object.keys(answer.configs).sort()).toEqual(
      [
        'EMAIL_AUTH',
        'EMAIL_PASS',
        'EMAIL_PORT',
        'EMAIL_SMTP',
        'EMAIL_TLS',
        'LEVEL_MAPPER',
        'MODEL_FAILOVER',
        'MODEL_LIMITS',
        'MODEL_MAPPER',
        'PRICING',
        'RESOURCES',
        'SVC_MAIL',
        'SWITCH_OVER',
      ].sort(),
    );
    expect(answer.configs).toMatchObject({ MODEL_MAPPER: {}, RESOURCES: {}, MODEL_LIMITS: {}, PRICING: '' });
  });

  it('stores every key, answers objects for mappers, RESOURCES and MODEL_LIMITS, PRICING as a string', async () => {
    const pricing = JSON.stringify({
      ChatPricing: { 'gpt-4o': { InputText: 2.5, OutputText: 10 } },
      ImgPricing: { 'dall-e-3': { Sizes: { '1024x1024': 0.04 } } },
    });
    const response = await put({
      MODEL_MAPPER: ' gpt-4 = gpt-4o , claude-* = claude-3-5-sonnet ',
      MODEL_FAILOVER: 'gpt-4o=gpt-4o-mini|gpt-4-turbo',
      LEVEL_MAPPER: 'gpt-4*=1,claude*=2',
      SWITCH_OVER: '1=2,2=3',
      RESOURCES: '/v1/chat/completions, /v1/models /v1/embeddings',
      MODEL_LIMITS: { 'gpt-4o': { rpm: 60, tpd: 100000 } },
      PRICING: pricing,
      SVC_MAIL: 'ops@example.com',
      EMAIL_SMTP: 'smtp.example.com',
      EMAIL_PORT: '587',
      EMAIL_AUTH: 'mailer@example.com',
      EMAIL_PASS,
      EMAIL_TLS: 'true',
    });
    expect(response.status).toBe(200);
    const answer = await get();
    expect(answer.configs).toEqual({
      MODEL_MAPPER: { 'gpt-4': 'gpt-4o', 'claude-*': 'claude-3-5-sonnet' },
      MODEL_FAILOVER: { 'gpt-4o': ['gpt-4o-mini', 'gpt-4-turbo'] },
      LEVEL_MAPPER: { 'gpt-4*': 1, 'claude*': 2 },
      SWITCH_OVER: { '1': 2, '2': 3 },
      RESOURCES: { '/v1/chat/completions': true, '/v1/models': true, '/v1/embeddings': true },
      MODEL_LIMITS: { 'gpt-4o': { rpm: 60, tpd: 100000 } },
      PRICING: pricing,
      SVC_MAIL: 'ops@example.com',
      EMAIL_SMTP: 'smtp.example.com',
      EMAIL_PORT: '587',
      EMAIL_AUTH: 'mailer@example.com',
      EMAIL_PASS: '********',
      EMAIL_TLS: 'true',
    });
    expect(JSON.stringify(await response.json())).not.toContain(EMAIL_PASS);
    // EMAIL_PASS is a cipher at rest; internal readers may ask for it, the edge never does.
    expect(await rows()).not.toContain(EMAIL_PASS.slice(0, 12));
    const internal = await client.getOwnerConfig({ ownerId: BigInt(rootId), revealSecrets: true });
    expect(internal.values.EMAIL_PASS).toBe(EMAIL_PASS);
    expect(internal.values.MODEL_MAPPER).toBe('gpt-4=gpt-4o,claude-*=claude-3-5-sonnet');
    expect((await client.getOwnerConfig({ ownerId: BigInt(rootId) })).values.EMAIL_PASS).toBe('********');
  });

  it('applies mapper removals with POST and keeps other entries', async () => {
    expect((await put({ MODEL_MAPPER: '-gpt-4, o1=o1-mini' }, 'POST')).status).toBe(200);
    expect((await get()).configs.MODEL_MAPPER).toEqual({ 'claude-*': 'claude-3-5-sonnet', o1: 'o1-mini' });
  });

  it('answers 400 naming the field for every malformed value and leaves the stored config unchanged', async () => {
    const before = await rows();
    const beforeView = JSON.stringify((await get()).configs);
    const bigPricing = JSON.stringify({
      CallPricing: Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [`m${i}`, { Call: 1 }])),
    });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model_mapper: 'a=b' }, 'model_mapper'],
      [{ EMAIL_SERVER: 'smtp.example.com' }, 'EMAIL_SERVER'],
      [{ MODEL_MAPPER: 'gpt-4' }, 'MODEL_MAPPER'],
      [{ MODEL_MAPPER: 'a=' }, 'MODEL_MAPPER'],
      [{ MODEL_MAPPER: 5 }, 'MODEL_MAPPER'],
      [{ MODEL_FAILOVER: 'a=b||c' }, 'MODEL_FAILOVER'],
      [{ LEVEL_MAPPER: 'gpt-4=high' }, 'LEVEL_MAPPER'],
      [{ SWITCH_OVER: '3=1' }, 'SWITCH_OVER'],
      [{ SWITCH_OVER: '1=1' }, 'SWITCH_OVER'],
      [{ RESOURCES: '/v1/../admin' }, 'RESOURCES'],
      [{ RESOURCES: 'v1/chat' }, 'RESOURCES'],
      [{ MODEL_LIMITS: { 'gpt-4o': { rpm: 1.5 } } }, 'MODEL_LIMITS.gpt-4o.rpm'],
      [{ MODEL_LIMITS: { 'gpt-4o': { rpm: -1 } } }, 'MODEL_LIMITS.gpt-4o.rpm'],
      [{ MODEL_LIMITS: { 'gpt-4o': { rps: 1 } } }, 'MODEL_LIMITS.gpt-4o.rps'],
      [{ MODEL_LIMITS: '{"gpt-4o":{"rpm":"5"}}' }, 'MODEL_LIMITS.gpt-4o.rpm'],
      [{ MODEL_LIMITS: 'not json' }, 'MODEL_LIMITS'],
      [{ PRICING: '{"ChatPricing":{"m":{"InputText":-1}}}' }, 'PRICING.ChatPricing.m.InputText'],
      [{ PRICING: '{"ChatPricing":{"m":{"Bogus":1}}}' }, 'PRICING.ChatPricing.m.Bogus'],
      [{ PRICING: '{"VideoPricing":{}}' }, 'PRICING.VideoPricing'],
      [{ PRICING: '{"ChatPricing":{"m":{"InputText":"1"}}}' }, 'PRICING.ChatPricing.m.InputText'],
      [{ PRICING: `{"ChatPricing":{}}${' '.repeat(128 * 1024)}` }, 'PRICING'],
      [{ PRICING: bigPricing }, 'PRICING'],
      [{ PRICING: '{' }, 'PRICING'],
      [{ PRICING: { ChatPricing: {} } }, 'PRICING'],
      [{ SVC_MAIL: 'nobody' }, 'SVC_MAIL'],
      [{ EMAIL_PORT: '99999' }, 'EMAIL_PORT'],
      [{ EMAIL_TLS: 'sometimes' }, 'EMAIL_TLS'],
      [{ EMAIL_SMTP: 'smtp host' }, 'EMAIL_SMTP'],
      // One bad key spoils the whole request: the good one is not stored either.
      [{ MODEL_MAPPER: 'x=y', EMAIL_PORT: '0' }, 'EMAIL_PORT'],
      [{}, 'configs'],
    ];
    for (const [body, field] of cases) {
      await expectError(await put(body), 400, 'invalid_request', field);
    }
    await expectError(await put([1, 2]), 400, 'invalid_request');
    expect(await rows()).toBe(before);
    expect(JSON.stringify((await get()).configs)).toBe(beforeView);
  });

  it('bounds every value at 128 KB and quotes only a short excerpt of what was sent, while other calls go on', async () => {
    const before = await rows();
    const huge = `${'a'.repeat(130 * 1024)}=b`;
    const [refused, concurrent] = await Promise.all([put({ MODEL_MAPPER: huge }), gw.request('/x-config')]);
    const body = await expectError(refused, 400, 'invalid_request', 'MODEL_MAPPER');
    expect(body.error.message.length).toBeLessThan(300);
    expect(concurrent.status).toBe(200);
    // Inside the bound, a long bad pattern is named by an excerpt, not echoed whole.
    const long = await put({ MODEL_MAPPER: `${'b'.repeat(100 * 1024)}!=c` });
    expect(
      (await expectError(long, 400, 'invalid_request', 'MODEL_MAPPER')).error.message.length,
    ).toBeLessThan(500);
    // The config service keeps its own bound for every caller, and its answer stays short.
    await expect(
      client.updateOwnerConfig({
        ownerId: BigInt(rootId),
        operatorId: BigInt(rootId),
        ipAddress: '127.0.0.1',
        values: { MODEL_MAPPER: huge },
        mergeLimits: false,
      }),
    ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('128 KB') });
    expect((await get()).success).toBe(true);
    expect(await rows()).toBe(before);
  });

  it('restores defaults on DELETE, bumps the version and publishes gw.config.updated', async () => {
    const v1 = (await client.getOwnerConfig({ ownerId: BigInt(rootId) })).version;
    const response = await gw.request('/x-config', {
      method: 'DELETE',
      json: { keys: ['MODEL_MAPPER', 'PRICING', 'EMAIL_PASS'] },
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as ConfigAnswer;
    expect(answer.configs).toMatchObject({
      MODEL_MAPPER: {},
      PRICING: '',
      EMAIL_PASS: '',
      SVC_MAIL: 'ops@example.com',
    });
    const v2 = (await client.getOwnerConfig({ ownerId: BigInt(rootId) })).version;
    expect(v2).toBe(v1 + 1n);
    await waitFor(async () => seen.some((line) => line.includes(`"version":"${v2}"`)), 'gw.config.updated');
    expect(seen.at(-1)).toContain(`gw.config.updated.${rootId} `);
    expect(seen.at(-1)).toContain(`"version":"${v2}"`);
    expect(seen.join('\n')).not.toContain(EMAIL_PASS);

    await expectError(
      await gw.request('/x-config', { method: 'DELETE', json: { keys: ['NOPE'] } }),
      400,
      'invalid_request',
      'NOPE',
    );
    await expectError(
      await gw.request('/x-config', { method: 'DELETE', json: { keys: [] } }),
      400,
      'invalid_request',
    );
    await expectError(await gw.request('/x-config', { method: 'DELETE', json: {} }), 400, 'invalid_request');
    expect((await client.getOwnerConfig({ ownerId: BigInt(rootId) })).version).toBe(v2);
  });

  it("auto-completes LEVEL_MAPPER from a new key's Provider without touching the owner's entries", async () => {
    expect((await put({ LEVEL_MAPPER: 'gemini*=5' })).status).toBe(200);
    const addKey = async (provider: string, level: number) => {
      const response = await gw.request('/x-keys', {
        method: 'POST',
        json: { SecretKey: 'sk-auto-config-test-key-0001', Level: level, Provider: provider },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { AutoConfig: { LevelMapper: Record<string, number> } }).AutoConfig
        .LevelMapper;
    };
    expect(await addKey('https://api.deepseek.com', 2)).toEqual({ 'deepseek*': 2 });
    expect(await addKey('https://api.anthropic.com', 6)).toEqual({});
    expect(await addKey('https://generativelanguage.googleapis.com', 3)).toEqual({});
    expect(await addKey('https://my-deepseek-relay.example.com', 4)).toEqual({});
    expect(await addKey('https://llm.example.com', 4)).toEqual({});
    expect((await get()).configs.LEVEL_MAPPER).toMatchObject({ 'gemini*': 5, 'claude*': 2, 'deepseek*': 2 });
    // One more change as a barrier: the config service publishes in order on one connection, so
    // once its announcement is here, any audit event of the keys added before it is here too.
    expect((await put({ SVC_MAIL: 'barrier@example.com' })).status).toBe(200);
    const barrier = (await client.getOwnerConfig({ ownerId: BigInt(rootId) })).version;
    await waitFor(async () => seen.some((line) => line.includes(`"version":"${barrier}"`)), 'the barrier');
    expect(auditSeen).toHaveLength(1);
    expect(auditSeen[0]).toContain('deepseek*=2');
  });

  it('refuses a non-owner with 403 on every method', async () => {
    const user = await createUser(gw, { name: 'confuser1' });
    for (const method of ['GET', 'PUT', 'POST', 'DELETE']) {
      const json =
        method === 'GET'
          ? undefined
          : method === 'DELETE'
            ? { keys: ['MODEL_MAPPER'] }
            : { MODEL_MAPPER: 'a=b' };
      await expectError(await gw.request('/x-config', { method, key: user.key, json }), 403, 'forbidden');
    }
  });
});
