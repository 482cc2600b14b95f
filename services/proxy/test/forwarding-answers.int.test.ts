import { waitFor, wavFile } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { json, useForwardingProxy } from './forwarding-fixture.js';

/**
 * Forwarding safety in-process, on the way back: the header allowlist to the client, complete
 * metering and key health that only what says something about the key can touch.
 */
describe('forwarding: what comes back', () => {
  const proxy = useForwardingProxy();

  describe('headers back to the client', () => {
    it("never shows the upstream's organisation, project, cookies or rate limits", async () => {
      proxy.useKeys([{ secret: 'headers-1' }]);
      const response = await proxy.call('/v1/chat/completions', json({ model: 'm', messages: [] }));
      expect(response.status).toBe(200);
      for (const name of [
        'openai-organization',
        'openai-project',
        'set-cookie',
        'x-ratelimit-remaining-requests',
      ]) {
        expect({ name, value: response.headers.get(name) }).toEqual({ name, value: null });
      }
      expect(response.headers.get('content-type')).toBe('application/json');
    });

    it("relays a whole answer with upstream's Content-Length (unchanged bytes), a stream chunked", async () => {
      proxy.useKeys([{ secret: 'length-1' }]);
      const whole = await proxy.call('/v1/chat/completions', json({ model: 'm', messages: [] }));
      const body = Buffer.from(await whole.arrayBuffer());
      expect(body.length).toBeGreaterThan(0);
      expect(whole.headers.get('content-length')).toBe(String(body.length));
      expect(whole.headers.get('transfer-encoding')).toBeNull();
      // Upstream sent this one chunked, without a length: so does the relay, the body intact.
      const chunked = await proxy.call('/v1/embeddings', json({ model: 'm', input: 'hi' }));
      expect(((await chunked.json()) as { object: string }).object).toBe('list');
      expect(chunked.headers.get('transfer-encoding')).toBe('chunked');
      expect(chunked.headers.get('content-length')).toBeNull();
      const stream = await proxy.call(
        '/v1/chat/completions',
        json({ model: 'm', messages: [], stream: true, stream_options: { include_usage: true } }),
      );
      expect(await stream.text()).toContain('data: [DONE]');
      expect(stream.headers.get('transfer-encoding')).toBe('chunked');
      expect(stream.headers.get('content-length')).toBeNull();
    });
  });

  it("passes a stream's first event on while upstream still thinks about the next", async () => {
    // The relay gathers the writes of one turn of the event loop into one; it must not hold them
    // for the next read. Upstream pauses a minute before its second event: the first must arrive.
    proxy.useKeys([{ secret: 'first-event-1' }]);
    proxy.mock.set('first-event-1', { chunks: 1, chunkDelayMs: 60_000 });
    const abort = new AbortController();
    const response = await proxy.call('/v1/chat/completions', {
      ...json({ model: 'm', messages: [], stream: true }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('\n\n')) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      seen += Buffer.from(value!).toString('utf8');
    }
    expect(seen).toContain('"role":"assistant"');
    abort.abort();
    // The client left mid-stream: after the usage grace the call is cut and billed as partial.
    await waitFor(async () => proxy.outbox.events.length === 1, 'the partial call billed');
    expect(proxy.outbox.events[0]).toMatchObject({ partial: true });
  });

  describe('metering', () => {
    it('bills a 10 MiB answer with the usage upstream reported at its end', async () => {
      proxy.useKeys([{ secret: 'big-1' }]);
      proxy.mock.set('big-1', {
        answerBytes: 10 * 1024 * 1024,
        usage: { prompt_tokens: 1234, completion_tokens: 2_500_000 },
      });
      const response = await proxy.call('/v1/chat/completions', json({ model: 'm', messages: [] }));
      expect((await response.text()).length).toBeGreaterThan(10 * 1024 * 1024);
      await waitFor(async () => proxy.outbox.events.length === 1, 'the usage event');
      expect(proxy.outbox.events[0]).toMatchObject({
        promptTokens: 1234n,
        completionTokens: 2_500_000n,
        estimated: false,
        partial: false,
      });
    });

    it('bills a call whose client left before the headers, with the usage upstream reported', async () => {
      proxy.useKeys([{ secret: 'gone-1' }]);
      proxy.mock.set('gone-1', { headersDelayMs: 300, usage: { prompt_tokens: 40, completion_tokens: 60 } });
      const abort = new AbortController();
      const pending = proxy.call('/v1/chat/completions', {
        ...json({ model: 'm', messages: [] }),
        signal: abort.signal,
      });
      await waitFor(async () => proxy.mock.for('gone-1').length === 1, 'the call upstream');
      abort.abort();
      await expect(pending).rejects.toThrow();
      await waitFor(async () => proxy.outbox.events.length === 1, 'the usage event');
      expect(proxy.outbox.events[0]).toMatchObject({
        promptTokens: 40n,
        completionTokens: 60n,
        partial: true,
        estimated: false,
      });
      expect(proxy.mock.for('gone-1')[0]?.abortedAt).toBeUndefined();
    });

    it.each([
      ['/v1/audio/speech', { model: 'tts-1', input: 'say this aloud', voice: 'alloy' }],
      ['/v1/moderations', { model: 'omni-moderation-latest', input: 'check this text' }],
    ])(
      'estimates and flags %s, whose answer reports no usage: never zero tokens unflagged',
      async (path, body) => {
        proxy.useKeys([{ secret: `estimate-${path}` }]);
        expect((await proxy.call(path, json(body))).status).toBe(200);
        await waitFor(async () => proxy.outbox.events.length === 1, 'the usage event');
        expect(proxy.outbox.events[0]).toMatchObject({ estimated: true, partial: false });
        expect(proxy.outbox.events[0]?.promptTokens).toBeGreaterThan(0n);
      },
    );

    it('records images made and audio metered by duration as upstream reported them', async () => {
      proxy.useKeys([{ secret: 'media-1' }]);
      expect(
        (
          await proxy.call(
            '/v1/images/generations',
            json({ model: 'dall-e-3', prompt: 'a cat', n: 2, size: '1024x1024' }),
          )
        ).status,
      ).toBe(200);
      const form = new FormData();
      form.set('model', 'whisper-1');
      form.set('file', new Blob([new Uint8Array(wavFile(10))]), 'a.wav');
      expect((await proxy.call('/v1/audio/transcriptions', { body: form })).status).toBe(200);
      await waitFor(async () => proxy.outbox.events.length === 2, 'two usage events');
      expect(proxy.outbox.events[0]).toMatchObject({
        imageCount: 2,
        imageSize: '1024x1024',
        estimated: false,
      });
      expect(proxy.outbox.events[1]).toMatchObject({ audioMs: 3500n, estimated: false });
    });
  });

  describe('key health', () => {
    it('never blames a key for the client request (400, 404, 413, 422): relayed once, no failover', async () => {
      for (const status of [400, 404, 413, 422]) {
        proxy.reset();
        proxy.useKeys([{ secret: `client-${status}-a` }, { secret: `client-${status}-b` }]);
        proxy.mock.set(`client-${status}-a`, {
          status,
          errorBody: { error: { message: 'bad request body', code: 'invalid_value' } },
        });
        const response = await proxy.call('/v1/chat/completions', json({ model: 'm', messages: [] }));
        expect(response.status).toBe(status);
        expect(await response.json()).toEqual({
          error: {
            message: 'bad request body',
            type: 'invalid_request_error',
            code: 'invalid_value',
            param: null,
          },
        });
        expect(proxy.mock.for(`client-${status}-b`)).toHaveLength(0);
        expect(proxy.health.failures).toEqual([]);
      }
    });

    it('counts a 403 about the model against the first key that gave it only, and fails over', async () => {
      proxy.useKeys([{ secret: 'model-a' }, { secret: 'model-b' }, { secret: 'model-c' }]);
      for (const key of ['model-a', 'model-b']) {
        proxy.mock.set(key, {
          status: 403,
          errorBody: { error: { message: 'You are not allowed to sample from this model' } },
        });
      }
      const response = await proxy.call('/v1/chat/completions', json({ model: 'gpt-x', messages: [] }));
      expect(response.status).toBe(200);
      // One request blames one (key, model) pair at most: never the model across the Level.
      expect(proxy.health.failures).toEqual([['1', 'model']]);
      expect(proxy.mock.for('model-b')).toHaveLength(1);
      expect(proxy.mock.for('model-c')).toHaveLength(1);
    });

    it('relays a 404 about the model once, blaming nothing: an unknown model or the wrong endpoint for it', async () => {
      proxy.useKeys([{ secret: 'unknown-a' }, { secret: 'unknown-b' }]);
      proxy.mock.set('unknown-a', {
        status: 404,
        errorBody: {
          error: {
            message: 'The model `gpt-x` does not exist or you do not have access to it.',
            code: 'model_not_found',
          },
        },
      });
      const response = await proxy.call('/v1/chat/completions', json({ model: 'gpt-x', messages: [] }));
      expect(response.status).toBe(404);
      expect(proxy.health.failures).toEqual([]);
      expect(proxy.mock.for('unknown-b')).toHaveLength(0);
    });
  });
});
