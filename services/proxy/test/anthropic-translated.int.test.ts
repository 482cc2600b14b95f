import { ErrorCode } from '@gw/kit';
import { expectError } from '@gw/testkit';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { useAnthropicGateway } from './anthropic-fixture.js';

const USAGE = {
  input_tokens: 1000,
  output_tokens: 500,
  cache_read_input_tokens: 2000,
  cache_creation_input_tokens: 400,
};
// 1000 × $3 + 2000 × $0.30 (cache reads) + 400 × $3.75 (cache writes) + 500 × $15, per million.
const COST_PER_CALL = 0.0126;
const MODEL = 'claude-sonnet-4-5';
const TOOLS: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'weather',
      description: 'Weather now',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  },
];

/**
 * The official openai SDK calling a Claude model through the translation: chat/completions on an
 * anthropic key becomes a Messages call and its answer comes back in the chat shape (plain,
 * streamed with the usage chunk, tools), each call charged exactly; refusals in the spec's shape.
 */
describe('POST /v1/chat/completions for a model routed to an anthropic key', () => {
  const relay = useAnthropicGateway();
  const openai = (key: string) =>
    new OpenAI({ apiKey: key, baseURL: `${relay.gw.baseUrl}/v1`, maxRetries: 0 });

  it('answers plain, streamed and tool calls in the chat shape, each call charged exactly', async () => {
    const secret = relay.secret('chat-claude');
    await relay.anthropicLevel(1, MODEL, [secret]);
    relay.mock.set(secret, { anthropicUsage: USAGE });
    const user = await relay.tenant();
    const client = openai(user.key);

    const plain = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(plain.choices[0]).toMatchObject({
      message: { role: 'assistant', content: `hello from ${secret}` },
      finish_reason: 'stop',
    });
    expect(plain.usage).toMatchObject({
      prompt_tokens: 3400,
      completion_tokens: 500,
      total_tokens: 3900,
      prompt_tokens_details: { cached_tokens: 2000 },
    });
    // Upstream got a Messages request with the owner's key.
    const [sent] = relay.mock.for(secret);
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.headers['x-api-key']).toBe(secret);
    expect(sent?.anthropicVersion).toBe('2023-06-01');
    expect(sent?.body).toEqual({
      model: MODEL,
      max_tokens: 4096,
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });

    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finishes.push(
        ...chunk.choices.flatMap((choice) => (choice.finish_reason ? [choice.finish_reason] : [])),
      );
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('tok0 tok1 tok2 ');
    expect(finishes).toEqual(['stop']);
    expect(usage).toMatchObject({ prompt_tokens: 3400, completion_tokens: 500 });

    const tool = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: TOOLS,
      tool_choice: 'required',
    });
    expect(tool.choices[0]?.finish_reason).toBe('tool_calls');
    expect(tool.choices[0]?.message.tool_calls).toEqual([
      { id: 'toolu_mock', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(relay.mock.for(secret)[2]?.body).toMatchObject({
      tools: [{ name: 'weather', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
    });

    const streamedTool = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: TOOLS,
      stream: true,
    });
    let name = '';
    let args = '';
    for await (const chunk of streamedTool) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
    }
    expect({ name, args: JSON.parse(args) as unknown }).toEqual({ name: 'weather', args: { city: 'Oslo' } });

    const bill = await relay.billOf(user, 4);
    expect(bill.total_usage.prompt_tokens).toBe(4 * 3400);
    expect(bill.total_usage.cost).toBeCloseTo(4 * COST_PER_CALL, 9);
  });

  it("refuses in the spec's shape: what cannot be translated, AllowModels, the rate limit, an upstream error", async () => {
    const secret = relay.secret('chat-claude-refusals');
    await relay.anthropicLevel(2, MODEL, [secret]);
    const user = await relay.tenant({ RPM: 2 });
    const chat = (key: string, extra: Record<string, unknown> = {}) =>
      relay.gw.request('/v1/chat/completions', {
        method: 'POST',
        key,
        json: { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...extra },
      });

    await expectError(
      await chat(user.key, { n: 2 }),
      400,
      ErrorCode.InvalidRequest,
      'n: cannot be translated',
    );
    await expectError(
      await chat(user.key, {
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } },
      }),
      400,
      ErrorCode.InvalidRequest,
      'response_format',
    );
    const narrow = await relay.tenant({ AllowModels: 'gpt-*' });
    await expectError(await chat(narrow.key), 403, ErrorCode.ModelNotAllowed, MODEL);
    // The refused translations were taken back from the windows: RPM 2 still admits two calls.
    expect((await chat(user.key)).status).toBe(200);
    relay.mock.set(secret, { status: 400 });
    const upstreamRefusal = await chat(user.key);
    expect(upstreamRefusal.status).toBe(400);
    // Relayed as OpenAI's error shape, the fields a client reads and nothing else.
    expect(await upstreamRefusal.json()).toEqual({
      error: {
        message: 'mock 400',
        type: 'invalid_request_error',
        code: 'invalid_request_error',
        param: null,
      },
    });
    await expectError(await chat(user.key), 429, ErrorCode.RateLimited, 'RPM');
    await relay.billOf(user, 1);
  });

  it('refuses an OpenAI-style endpoint anthropic keys do not serve, with 404 naming why', async () => {
    const secret = relay.secret('embed-claude');
    await relay.anthropicLevel(3, MODEL, [secret]);
    const response = await relay.gw.request('/v1/embeddings', {
      method: 'POST',
      json: { model: MODEL, input: 'x' },
    });
    await expectError(response, 404, ErrorCode.NotFound, 'provider type anthropic');
    expect(relay.mock.for(secret)).toHaveLength(0);
  });
});
