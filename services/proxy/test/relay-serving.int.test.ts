import { waitFor } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { useRelayGateway } from './relay-fixture.js';

/**
 * Serving through the gateway: the official SDK's calls, streaming chunk by chunk, the usage event of
 * each call (partial when the client leaves mid-stream), and the callers refused before upstream.
 */
describe('proxy relay through the gateway: chat, embeddings and streams, who is refused, a client that leaves', () => {
  const relay = useRelayGateway();
  const { level, secret, usageFor } = relay;

  it('serves a chat completion through the official SDK and records one usage event', async () => {
    const k = secret('chat');
    const [id] = await level(1, 'gpt-chat', [{ secret: k }], { MODEL_MAPPER: 'chat-alias=gpt-chat' });
    relay.mock.set(k, { usage: { prompt_tokens: 21, completion_tokens: 9, cached: 4 } });

    const completion = await relay.client.chat.completions.create({
      model: 'chat-alias',
      messages: [{ role: 'user', content: 'hi' }],
    });

    expect(completion.choices[0]?.message.content).toBe(`hello from ${k}`);
    const seen = relay.mock.for(k);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.body.model).toBe('gpt-chat');
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${k}`);
    expect(seen[0]?.headers['x-gw-internal-token']).toBeUndefined();
    expect(seen[0]?.headers['x-gw-account']).toBeUndefined();
    await waitFor(async () => usageFor(id ?? 0).length === 1, 'usage event', 5_000, 20);
    const event = usageFor(id ?? 0)[0];
    expect(event).toMatchObject({
      accountId: BigInt(relay.rootId),
      ownerId: BigInt(relay.rootId),
      modelRequested: 'chat-alias',
      modelServed: 'gpt-chat',
      level: 1,
      path: '/v1/chat/completions',
      status: 200,
      promptTokens: 21n,
      completionTokens: 9n,
      cachedTokens: 4n,
      callCount: 1,
      partial: false,
    });
    expect(event?.eventId).toMatch(/^evt_/);
  });

  it("publishes each call's usage event with that call's request id, also when calls share a publish", async () => {
    const k = secret('request-ids');
    const [id] = await level(6, 'gpt-request-ids', [{ secret: k }]);
    const requestIds = ['req-usage-one', 'req-usage-two', 'req-usage-three'];
    // Together, so that their events wait in the outbox at once and go out in one batch.
    await Promise.all(
      requestIds.map((requestId) =>
        relay.client.chat.completions.create(
          { model: 'gpt-request-ids', messages: [{ role: 'user', content: 'hi' }] },
          { headers: { 'x-request-id': requestId } },
        ),
      ),
    );
    await waitFor(async () => usageFor(id ?? 0).length === 3, 'usage events', 5_000, 20);
    const published = usageFor(id ?? 0).map((event) => relay.usageRequestIds.get(event.eventId));
    expect(published.sort()).toEqual([...requestIds].sort());
  });

  it('serves embeddings through the official SDK', async () => {
    const k = secret('embed');
    const [id] = await level(2, 'embed-1', [{ secret: k }]);
    relay.mock.set(k, { usage: { prompt_tokens: 5, completion_tokens: 0 } });
    const result = await relay.client.embeddings.create({ model: 'embed-1', input: 'hello' });
    expect(result.data[0]?.embedding).toHaveLength(3);
    await waitFor(async () => usageFor(id ?? 0).length === 1, 'usage event', 5_000, 20);
    expect(usageFor(id ?? 0)[0]).toMatchObject({ path: '/v1/embeddings', promptTokens: 5n });
  });

  it('streams chunks through the SDK, asks upstream for usage and hides the usage chunk', async () => {
    const k = secret('stream');
    const [id] = await level(3, 'gpt-stream', [{ secret: k }]);
    relay.mock.set(k, { chunks: 5, usage: { prompt_tokens: 13, completion_tokens: 5 } });

    const stream = await relay.client.chat.completions.create({
      model: 'gpt-stream',
      stream: true,
      messages: [{ role: 'user', content: 'count' }],
    });
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      sawUsage ||= chunk.usage != null;
      expect(chunk.choices.length).toBeGreaterThan(0);
    }

    expect(text).toBe('tok0 tok1 tok2 tok3 tok4 ');
    expect(sawUsage).toBe(false);
    expect(relay.mock.for(k)[0]?.body.stream_options).toEqual({ include_usage: true });
    await waitFor(async () => usageFor(id ?? 0).length === 1, 'usage event', 5_000, 20);
    expect(usageFor(id ?? 0)[0]).toMatchObject({ promptTokens: 13n, completionTokens: 5n, partial: false });
  });

  it('passes the usage chunk through when the client asked for it', async () => {
    const k = secret('asked');
    await level(4, 'gpt-asked', [{ secret: k }]);
    const stream = await relay.client.chat.completions.create({
      model: 'gpt-asked',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'count' }],
    });
    let reported: number | undefined;
    for await (const chunk of stream) {
      reported = chunk.usage?.completion_tokens ?? reported;
    }
    expect(reported).toBe(7);
  });

  it('delivers the first chunk to the client before upstream has finished', async () => {
    const k = secret('slow');
    await level(5, 'gpt-slow', [{ secret: k }]);
    relay.mock.set(k, { chunks: 6, chunkDelayMs: 250 });

    const stream = await relay.client.chat.completions.create({
      model: 'gpt-slow',
      stream: true,
      messages: [{ role: 'user', content: 'slow' }],
    });
    let upstreamDoneAtFirstContent: boolean | undefined;
    for await (const chunk of stream) {
      if (upstreamDoneAtFirstContent === undefined && chunk.choices[0]?.delta.content) {
        upstreamDoneAtFirstContent = relay.mock.for(k)[0]?.finishedAt !== undefined;
      }
    }
    // The first chunk reached us while upstream was still writing the other five.
    expect(upstreamDoneAtFirstContent).toBe(false);
    expect(relay.mock.for(k)[0]?.finishedAt).toBeDefined();
  });

  it('refuses an unknown key with 401 before anything goes upstream', async () => {
    const before = relay.mock.requests.length;
    const response = await relay.gw.request('/v1/chat/completions', {
      method: 'POST',
      key: 'sk-not-a-key',
      json: { model: 'x', messages: [] },
    });
    expect(response.status).toBe(401);
    expect(relay.mock.requests.length).toBe(before);
  });

  it('aborts upstream after the usage grace when the client leaves mid-stream', async () => {
    const k = secret('leaver');
    const [id] = await level(2, 'gpt-leave', [{ secret: k }]);
    relay.mock.set(k, { chunks: 100, chunkDelayMs: 50, omitUsage: true });

    const controller = new AbortController();
    const response = await fetch(`${relay.gw.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${relay.gw.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-leave',
        stream: true,
        messages: [{ role: 'user', content: 'long' }],
      }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();

    // Upstream would stream for five more seconds: the proxy cut it instead of reading it out.
    await waitFor(async () => relay.mock.for(k)[0]?.abortedAt !== undefined, 'upstream aborted');
    expect(relay.mock.for(k)[0]?.finishedAt).toBeUndefined();
    await waitFor(async () => usageFor(id ?? 0).length === 1, 'partial usage event', 5_000, 20);
    const event = usageFor(id ?? 0)[0];
    expect(event?.partial).toBe(true);
    expect(event?.completionTokens).toBeGreaterThan(0n);
  });

  it('refuses calls to the proxy that do not carry the internal token', async () => {
    const response = await fetch(`http://${relay.gw.env.PROXY_ADDR}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gw-account': Buffer.from(
          JSON.stringify({ accountId: '1', ownerId: '1', allowModels: '', allowLevels: '', modelMapper: '' }),
        ).toString('base64'),
      },
      body: JSON.stringify({ model: 'gpt-chat', messages: [] }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
  });
});
