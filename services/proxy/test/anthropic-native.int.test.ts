import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { useAnthropicGateway } from './anthropic-fixture.js';

/** Usage the mock reports per call, and its cost at claude-sonnet-4-5's default prices. */
const USAGE = {
  input_tokens: 1000,
  output_tokens: 500,
  cache_read_input_tokens: 2000,
  cache_creation_input_tokens: 400,
};
// 1000 × $3 + 2000 × $0.30 (cache reads) + 400 × $3.75 (cache writes) + 500 × $15, per million.
const COST_PER_CALL = 0.0126;
const MODEL = 'claude-sonnet-4-5';

/** An Anthropic APIError's status and body. */
async function refusal(call: Promise<unknown>): Promise<{ status: unknown; body: unknown }> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return { status: (error as APIError).status, body: (error as APIError).error };
}

/**
 * Anthropic's Messages API through the gateway, with the official SDK unchanged: both ways of
 * giving the gateway key, plain, streamed, tool use and count_tokens, each call charged exactly,
 * refusals in Anthropic's error shape, and failover between anthropic keys.
 */
describe('POST /v1/messages and /v1/messages/count_tokens through the gateway', () => {
  const relay = useAnthropicGateway();
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Hi' }];

  it('serves the SDK with Bearer and anthropic-version 2026-10-21: plain, streamed, tool use and count_tokens, each call charged exactly', async () => {
    const secret = relay.secret('anth-bearer');
    await relay.anthropicLevel(1, MODEL, [secret]);
    relay.mock.set(secret, { anthropicUsage: USAGE });
    const user = await relay.tenant();
    const client = new Anthropic({
      authToken: user.key,
      apiKey: null,
      baseURL: relay.gw.baseUrl,
      maxRetries: 0,
    });

    const counted = await client.messages.countTokens({ model: MODEL, messages });
    expect(counted.input_tokens).toBe(1000);
    const plain = await client.messages.create({ model: MODEL, max_tokens: 64, messages });
    expect(plain.content).toEqual([{ type: 'text', text: `hello from ${secret}` }]);
    expect(plain.usage).toMatchObject(USAGE);
    const streamed = await client.messages.stream({ model: MODEL, max_tokens: 64, messages }).finalMessage();
    expect(streamed.content).toMatchObject([{ type: 'text', text: 'tok0 tok1 tok2 ' }]);
    expect(streamed.usage.output_tokens).toBe(500);
    const tool = await client.messages.create({
      model: MODEL,
      max_tokens: 64,
      messages,
      tools: [
        { name: 'weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
      ],
    });
    expect(tool.stop_reason).toBe('tool_use');
    expect(tool.content).toEqual([
      { type: 'tool_use', id: 'toolu_mock', name: 'weather', input: { city: 'Oslo' } },
    ]);

    // Upstream got the owner's key in x-api-key, the client's version, and never the gateway key.
    const seen = relay.mock.for(secret);
    expect(seen.map((request) => request.path)).toEqual([
      '/v1/messages/count_tokens',
      '/v1/messages',
      '/v1/messages',
      '/v1/messages',
    ]);
    for (const request of seen) {
      expect(request.headers['x-api-key']).toBe(secret);
      expect(request.anthropicVersion).toBe('2026-10-21');
      expect(request.headers.authorization).toBeUndefined();
    }
    // Counting tokens is free: three calls billed, each exactly at the default prices.
    const bill = await relay.billOf(user, 3);
    expect(bill.total_usage.prompt_tokens).toBe(3 * 3400);
    expect(bill.total_usage.completion_tokens).toBe(3 * 500);
    expect(bill.total_usage.cost).toBeCloseTo(3 * COST_PER_CALL, 9);
  });

  it('takes the gateway key as x-api-key with anthropic-version 2023-06-01, and passes anthropic-beta on', async () => {
    const secret = relay.secret('anth-xapikey');
    await relay.anthropicLevel(2, MODEL, [secret]);
    relay.mock.set(secret, { anthropicUsage: USAGE });
    const user = await relay.tenant();
    const client = new Anthropic({
      apiKey: user.key,
      baseURL: relay.gw.baseUrl,
      maxRetries: 0,
      defaultHeaders: { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'prompt-caching-2024-07-31' },
    });

    const streamed = await client.messages.stream({ model: MODEL, max_tokens: 64, messages }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'text', text: 'tok0 tok1 tok2 ' });
    const [request] = relay.mock.for(secret);
    expect(request?.headers['x-api-key']).toBe(secret);
    expect(request?.anthropicVersion).toBe('2023-06-01');
    expect(request?.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect((await relay.billOf(user, 1)).total_usage.cost).toBeCloseTo(COST_PER_CALL, 9);
  });

  it("refuses in Anthropic's error shape: an unknown key, AllowModels, the rate limit", async () => {
    const secret = relay.secret('anth-refusals');
    await relay.anthropicLevel(3, MODEL, [secret]);
    const sdk = (key: string) => new Anthropic({ apiKey: key, baseURL: relay.gw.baseUrl, maxRetries: 0 });
    const call = (key: string) => sdk(key).messages.create({ model: MODEL, max_tokens: 8, messages });

    expect(await refusal(call('sk-not-a-gateway-key'))).toEqual({
      status: 401,
      body: { type: 'error', error: { type: 'authentication_error', message: 'invalid API key' } },
    });
    const narrow = await relay.tenant({ AllowModels: 'claude-haiku-*' });
    expect(await refusal(call(narrow.key))).toMatchObject({
      status: 403,
      body: { type: 'error', error: { type: 'permission_error', message: expect.stringContaining(MODEL) } },
    });
    const limited = await relay.tenant({ RPM: 1 });
    await call(limited.key);
    expect(await refusal(call(limited.key))).toMatchObject({
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: expect.stringContaining('RPM') } },
    });
    // Only the one admitted call reached upstream.
    expect(relay.mock.for(secret)).toHaveLength(1);
  });

  it('fails over from a failing anthropic key to a healthy one and bills only the one that served', async () => {
    const bad = relay.secret('anth-overloaded');
    const good = relay.secret('anth-good');
    const [badId, goodId] = await relay.anthropicLevel(4, MODEL, [bad, good]);
    relay.mock.set(bad, { status: 529 });
    const client = new Anthropic({ apiKey: relay.gw.rootKey, baseURL: relay.gw.baseUrl, maxRetries: 0 });

    // Two calls: round robin starts one of them on the failing key.
    for (let i = 0; i < 2; i += 1) {
      const answer = await client.messages.create({ model: MODEL, max_tokens: 8, messages });
      expect(answer.content).toEqual([{ type: 'text', text: `hello from ${good}` }]);
    }
    expect(relay.mock.for(bad)).toHaveLength(1);
    expect(relay.mock.for(good)).toHaveLength(2);
    await relay.waitForUsage(goodId ?? 0, 2);
    expect(relay.usageFor(badId ?? 0)).toHaveLength(0);
  });

  it('refuses /v1/messages for a model only OpenAI-style keys serve, with 404 naming why', async () => {
    const secret = relay.secret('anth-standard');
    await relay.level(5, 'gpt-not-claude', [{ secret }]);
    const client = new Anthropic({ apiKey: relay.gw.rootKey, baseURL: relay.gw.baseUrl, maxRetries: 0 });

    expect(
      await refusal(client.messages.create({ model: 'gpt-not-claude', max_tokens: 8, messages })),
    ).toMatchObject({
      status: 404,
      body: {
        type: 'error',
        error: { type: 'not_found_error', message: expect.stringContaining('provider type anthropic') },
      },
    });
    expect(relay.mock.for(secret)).toHaveLength(0);
  });
});
