import { randomBytes } from 'node:crypto';
import { DEFAULT_PRICES, nanoToUsd, usd } from '@gw/kit';
import {
  createTestDatabase,
  createUser,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
  MockUpstream,
  waitForRoute,
} from '@gw/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MODEL = 'gpt-4o-mini';
const USAGE = { prompt_tokens: 1000, completion_tokens: 500, cached: 200 };

/**
 * USD per 1M tokens = nano-USD per thousand tokens: gpt-4o-mini's prices are whole nano-USD per
 * token, so the cost is exact. Cached prompt tokens are part of prompt_tokens and are charged
 * at CachedText instead of InputText, not on top of it.
 */
function expectedCost(): bigint {
  const price = DEFAULT_PRICES.ChatPricing[MODEL];
  const perToken = (usdPerMillion: number | undefined) => BigInt(Math.round((usdPerMillion ?? NaN) * 1000));
  const uncached = BigInt(USAGE.prompt_tokens - USAGE.cached);
  return (
    uncached * perToken(price?.InputText) +
    BigInt(USAGE.cached) * perToken(price?.CachedText) +
    BigInt(USAGE.completion_tokens) * perToken(price?.OutputText)
  );
}

describe('a paid call through the official openai SDK', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let mock: MockUpstream;

  beforeAll(async () => {
    mock = await MockUpstream.start();
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url });
    const secret = `billing-${randomBytes(12).toString('hex')}`;
    mock.set(secret, { usage: USAGE });
    const added = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: secret, Level: 1, Provider: mock.url },
    });
    expect(added.status, await added.clone().text()).toBe(200);
    const keyId = ((await added.json()) as { Key: { ID: number } }).Key.ID;
    const configured = await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: `${MODEL}=1` } });
    expect(configured.status).toBe(200);
    await waitForRoute(gw, MODEL, 1, [keyId]);
  }, 120_000);

  afterAll(async () => {
    await gw.stop();
    await database.drop();
    await mock.stop();
  });

  const balanceOf = async (key: string) =>
    ((await (await gw.request('/dashboard/status', { key })).json()) as { balance: number }).balance;

  it.each([
    ['plain', false],
    ['streamed', true],
  ])('takes the exact cost of a %s call from the subaccount balance', async (_, stream) => {
    const user = await createUser(gw, { credit: 5 });
    const client = new OpenAI({ apiKey: user.key, baseURL: `${gw.baseUrl}/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: 'hello' }];
    if (stream) {
      const chunks = await client.chat.completions.create({
        model: MODEL,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let received = 0;
      for await (const _chunk of chunks) {
        received += 1;
      }
      expect(received).toBeGreaterThan(0);
    } else {
      const answer = await client.chat.completions.create({ model: MODEL, messages });
      expect(answer.usage?.prompt_tokens).toBe(USAGE.prompt_tokens);
    }
    const expected = nanoToUsd(usd(5) - expectedCost());
    await waitFor(async () => (await balanceOf(user.key)) === expected, `balance ${expected}`, 10_000, 50);
    expect(await balanceOf(user.key)).toBe(expected);
  });

  it('counts both charges in billing metrics and ends with no consumer lag', async () => {
    const scrape = async () => (await fetch(`http://${gw.metrics.get('billing') ?? ''}/metrics`)).text();
    const sample = (text: string, name: string) =>
      text
        .split('\n')
        .find((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
        ?.split(' ')
        .at(-1);
    const charged = String(2n * expectedCost());
    await waitFor(
      async () => {
        const text = await scrape();
        return (
          sample(text, 'gw_billing_charged_nano_usd_total') === charged &&
          sample(text, 'gw_billing_consumer_lag') === '0'
        );
      },
      `billing metrics: ${charged} nano-USD charged, no lag`,
      10_000,
      50,
    );
  });
});
