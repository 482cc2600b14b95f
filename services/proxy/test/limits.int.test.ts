import { ErrorCode, SUBJECTS } from '@gw/kit';
import { events } from '@gw/proto';
import {
  createUser,
  expectError,
  keyTestEnv,
  randomSecret,
  startGateway,
  waitFor,
  type Gateway,
  MockUpstream,
  waitForRoute,
} from '@gw/testkit';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Request and token rate limits through every real process: the proxy (Redis windows) →
 * mock upstream. The mock answers every chat call with 18 tokens of usage.
 */
describe('rate limits through the gateway', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let nc: NatsConnection;
  const usage: events.UsageRecorded[] = [];
  const usageOf = (accountId: number) => usage.filter((event) => event.accountId === BigInt(accountId));

  const chat = (key: string, model: string, base?: string) =>
    gw.request('/v1/chat/completions', {
      method: 'POST',
      key,
      base,
      json: { model, messages: [{ role: 'user', content: 'hi' }] },
    });

  /** The statuses of `count` calls in a row. */
  const statuses = async (key: string, model: string, count: number) => {
    const seen: number[] = [];
    for (let i = 0; i < count; i++) {
      const response = await chat(key, model);
      await response.arrayBuffer();
      seen.push(response.status);
    }
    return seen;
  };

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({
      env: { ...keyTestEnv(), PROXY_DEFAULT_MODEL_LIMITS: JSON.stringify({ 'sysdef-*': { rpm: 2 } }) },
    });
    nc = await connect({ servers: gw.natsUrl });
    const sub = nc.subscribe(SUBJECTS.usageRecorded);
    void (async () => {
      for await (const msg of sub) {
        usage.push(events.UsageRecorded.fromJSON(JSON.parse(new TextDecoder().decode(msg.data))));
      }
    })();
    const key = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: randomSecret(), Level: 1, Provider: mock.url },
    });
    expect(key.status).toBe(200);
    const keyId = ((await key.json()) as { Key: { ID: number } }).Key.ID;
    const config = await gw.request('/x-config', {
      method: 'PUT',
      json: {
        LEVEL_MAPPER: 'lim-*=1,prio-*=1,sysdef-*=1',
        MODEL_LIMITS: JSON.stringify({ 'prio-*': { rpm: 1 } }),
      },
    });
    expect(config.status).toBe(200);
    await waitForRoute(gw, 'lim-a', 1, [keyId]);
  });

  afterAll(async () => {
    await nc.drain();
    await gw.stop();
    await mock.stop();
  });

  it('RPM: the Nth call passes and shows what remains; the N+1th is 429 with Retry-After and the OpenAI headers, never forwarded or billed', async () => {
    const user = await createUser(gw, { extra: { RPM: 3 } });
    for (let n = 1; n <= 3; n++) {
      const response = await chat(user.key, 'lim-a');
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit-requests')).toBe('3');
      expect(response.headers.get('x-ratelimit-remaining-requests')).toBe(String(3 - n));
      await response.arrayBuffer();
    }
    const forwarded = mock.requests.length;

    const refused = await chat(user.key, 'lim-a');
    expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('3');
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('x-ratelimit-reset-requests')).toMatch(/^(\d+m)?\d+s$/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(61);
    await expectError(refused, 429, ErrorCode.RateLimited, 'RPM');
    expect(mock.requests.length).toBe(forwarded);

    // Usage events leave one proxy in order: once another account's later call is recorded, a
    // usage event for the refused call would have been recorded before it.
    const other = await createUser(gw);
    expect((await chat(other.key, 'lim-a')).status).toBe(200);
    await waitFor(async () => usageOf(other.id).length === 1, 'the later call recorded');
    expect(usageOf(user.id)).toHaveLength(3);
  });

  it('TPM: counts the tokens a call used once it is done, and refuses calls while the window is full', async () => {
    const user = await createUser(gw, { extra: { TPM: 30 } });
    const first = await chat(user.key, 'lim-b');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('30');
    expect(first.headers.get('x-ratelimit-remaining-tokens')).toBe('30');
    await first.arrayBuffer();
    // 18 tokens of 30 are used: one more call fits, the one after it does not.
    let refused: Response | undefined;
    await waitFor(async () => {
      const response = await chat(user.key, 'lim-b');
      if (response.status === 429) {
        refused = response;
        return true;
      }
      await response.arrayBuffer();
      return false;
    }, 'a refusal once 30 tokens are used');
    expect(refused?.headers.get('x-ratelimit-limit-tokens')).toBe('30');
    expect(refused?.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    await expectError(refused!, 429, ErrorCode.RateLimited, 'TPM');
    // Refused calls are not billed: two calls used the window (18 + 18 ≥ 30).
    await waitFor(async () => usageOf(user.id).length === 2, 'two calls recorded');
  });

  it('holds a subaccount without limits of its own to the smallest its ancestors set', async () => {
    const parent = await createUser(gw, { credit: 10, extra: { RPM: 2 } });
    const child = await createUser(gw, { parentKey: parent.key });
    expect(await statuses(child.key, 'lim-d', 3)).toEqual([200, 200, 429]);
  });

  it("holds a subaccount that cleared its ModelLimits to its parent's", async () => {
    const parent = await createUser(gw, { credit: 10, extra: { ModelLimits: { 'lim-m': { rpm: 2 } } } });
    const child = await createUser(gw, { parentKey: parent.key });
    const cleared = await gw.request(`/x-users/${child.id}`, {
      method: 'PUT',
      key: parent.key,
      json: { ModelLimits: {} },
    });
    expect(cleared.status).toBe(200);
    expect(await statuses(child.key, 'lim-m', 3)).toEqual([200, 200, 429]);
  });

  it("limits per model by the account's ModelLimits, then the owner's MODEL_LIMITS, then the system defaults", async () => {
    const limited = await createUser(gw, { extra: { ModelLimits: { 'prio-a': { rpm: 2 } } } });
    const plain = await createUser(gw);
    // prio-a: the account's own entry (2) wins over the owner's prio-* (1).
    expect(await statuses(limited.key, 'prio-a', 3)).toEqual([200, 200, 429]);
    // The owner's prio-* holds for an account without its own entry, and for prio-b.
    expect(await statuses(plain.key, 'prio-a', 2)).toEqual([200, 429]);
    expect(await statuses(limited.key, 'prio-b', 2)).toEqual([200, 429]);
    // Neither sets sysdef-*: the system default (PROXY_DEFAULT_MODEL_LIMITS) applies.
    expect(await statuses(plain.key, 'sysdef-x', 3)).toEqual([200, 200, 429]);
    // No limit anywhere: unlimited.
    expect(await statuses(plain.key, 'lim-free', 4)).toEqual([200, 200, 200, 200]);
  });

  it('holds one limit over two proxies', async () => {
    const second = `http://${await gw.startProxyReplica()}`;
    const user = await createUser(gw, { extra: { RPM: 8 } });
    // One call through each path first: both serve.
    expect((await chat(user.key, 'lim-c')).status).toBe(200);
    expect((await chat(user.key, 'lim-c', second)).status).toBe(200);

    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const response = await chat(user.key, 'lim-c', i % 2 === 0 ? second : undefined);
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(answers.filter((status) => status === 200)).toHaveLength(6);
    expect(answers.filter((status) => status === 429)).toHaveLength(14);
  });
});
