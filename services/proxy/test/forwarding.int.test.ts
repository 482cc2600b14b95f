import { request as httpRequest } from 'node:http';
import { AI_ENDPOINTS, AI_RESOURCE_PATHS, encodeCaller } from '@gw/kit';
import { waitFor } from '@gw/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CALLER, startInProcessProxy, TOKEN, type InProcessProxy } from './in-process-proxy.js';

/**
 * Forwarding safety, in-process: the closed catalogue and the resource allowlists over it, exact
 * request parsing, the header allowlist back to the client, complete metering and key health that
 * only what says something about the key can touch.
 */
describe('forwarding', () => {
  let proxy: InProcessProxy;

  beforeAll(async () => {
    proxy = await startInProcessProxy();
  });
  beforeEach(() => proxy.reset());
  afterAll(async () => {
    await proxy.stop();
  });

  const json = (body: unknown) => ({
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  /** A minimal valid request for each catalogue endpoint. */
  const sample = (path: string) => {
    if (
      path.startsWith('/v1/images/edits') ||
      path.startsWith('/v1/images/variations') ||
      path.startsWith('/v1/audio/t')
    ) {
      const form = new FormData();
      form.set('model', 'm');
      form.set('file', new Blob([Buffer.alloc(64, 1)]), 'a.bin');
      return { body: form };
    }
    return json({ model: 'm', input: 'hello', prompt: 'hello', messages: [], query: 'q', documents: ['d'] });
  };

  describe('the catalogue and the resource allowlists', () => {
    const endpoints = AI_ENDPOINTS.filter((endpoint) => !endpoint.websocket);

    it.each([
      ['none', '', ''],
      ['the owner', '/v1/embeddings /v1/audio/speech', ''],
      ['the account', '', '/v1/embeddings,/v1/audio/speech'],
      ['both, crossing', '/v1/embeddings /v1/audio/speech', '/v1/audio/speech /v1/moderations'],
    ])('serves exactly what %s allows', async (_who, owner, account) => {
      proxy.useKeys([{ secret: `resources-${owner}-${account}` }], { config: { RESOURCES: owner } });
      const allowedBy = (list: string, path: string) => list === '' || list.split(/[\s,]+/).includes(path);
      for (const endpoint of endpoints) {
        const before = proxy.mock.requests.length;
        const response = await proxy.call(endpoint.path, {
          method: endpoint.method,
          caller: { resources: account },
          ...(endpoint.method === 'GET' ? {} : sample(endpoint.path)),
        });
        const allowed =
          endpoint.alwaysAllowed === true ||
          (allowedBy(owner, endpoint.path) && allowedBy(account, endpoint.path));
        expect({ path: endpoint.path, status: response.status === 403 ? 403 : 'served' }).toEqual({
          path: endpoint.path,
          status: allowed ? 'served' : 403,
        });
        expect(proxy.mock.requests.length - before).toBe(allowed ? 1 : 0);
      }
    });

    it('names every inference endpoint as a resource, and nothing stored', () => {
      expect(AI_RESOURCE_PATHS).toEqual(
        expect.arrayContaining(['/v1/chat/completions', '/v1/rerank', '/v1/realtime']),
      );
      expect(
        AI_RESOURCE_PATHS.filter((path) =>
          /files|batches|assistants|threads|vector|fine_tuning|uploads/.test(path),
        ),
      ).toEqual([]);
    });

    it('sends upstream the catalogue path, whatever redundant spelling the client used', async () => {
      proxy.useKeys([{ secret: 'canonical-1' }]);
      for (const path of [
        '/v1//chat/completions',
        '/v1/./chat/completions',
        '/v1/x/../chat/completions',
        '/v1/chat%2Fcompletions',
      ]) {
        const response = await proxy.call(path, json({ model: 'm', messages: [] }));
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
      }
      expect(proxy.mock.for('canonical-1').map((r) => r.rawPath)).toEqual(
        Array(4).fill('/v1/chat/completions'),
      );
    });

    it('drops the client query string: only the catalogue path goes upstream', async () => {
      proxy.useKeys([{ secret: 'query-1' }]);
      expect(
        (await proxy.call('/v1/embeddings?after=file-1&limit=100', json({ model: 'm', input: 'x' }))).status,
      ).toBe(200);
      expect(proxy.mock.for('query-1')[0]?.rawPath).toBe('/v1/embeddings');
    });
  });

  describe('request parsing', () => {
    it('refuses a JSON endpoint called without JSON (415), never forwarding it unchecked', async () => {
      proxy.useKeys([{ secret: 'ctype-1' }]);
      const body = JSON.stringify({ model: 'm', messages: [] });
      for (const contentType of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        '',
      ]) {
        const response = await proxy.call('/v1/chat/completions', {
          headers: contentType ? { 'content-type': contentType } : {},
          body,
        });
        expect({ contentType, status: response.status }).toEqual({ contentType, status: 415 });
        expect(await response.json()).toMatchObject({
          error: { type: 'invalid_request_error', code: 'unsupported_media_type' },
        });
      }
      for (const contentType of [
        'application/json',
        'Application/Json; Charset=UTF-8',
        'application/vnd.api+json',
      ]) {
        expect(
          (await proxy.call('/v1/chat/completions', { headers: { 'content-type': contentType }, body }))
            .status,
        ).toBe(200);
      }
      expect(proxy.mock.for('ctype-1')).toHaveLength(3);
    });

    it('reads multipart uploads with a real parser: the model part may have its own headers, twice is refused', async () => {
      proxy.useKeys([{ secret: 'multipart-1' }], { config: { MODEL_MAPPER: 'whisper-alias=whisper-1' } });
      const boundary = 'gwtestboundary';
      const part = (headers: string, value: string | Buffer) =>
        Buffer.concat([
          Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`),
          Buffer.from(value),
          Buffer.from('\r\n'),
        ]);
      const upload = (...parts: Buffer[]) =>
        proxy.call('/v1/audio/transcriptions', {
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
          body: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
        });
      const file = part(
        'Content-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav',
        Buffer.alloc(1000, 7),
      );

      const withHeaders = await upload(
        part(
          'Content-Disposition: form-data; name="model"\r\nContent-Type: text/plain; charset=utf-8',
          'whisper-alias',
        ),
        file,
      );
      expect(withHeaders.status).toBe(200);
      // The served model is written into the upload; the file goes upstream whole.
      expect(proxy.mock.for('multipart-1')[0]?.body).toMatchObject({
        model: 'whisper-1',
        file: { filename: 'a.wav', size: 1000 },
      });

      const twice = await upload(
        part('Content-Disposition: form-data; name="model"', 'whisper-1'),
        part('Content-Disposition: form-data; name="model"', 'gpt-4o'),
        file,
      );
      expect(twice.status).toBe(400);
      expect(await upload(file)).toMatchObject({ status: 400 });
      expect((await proxy.call('/v1/audio/transcriptions', json({ model: 'whisper-1' }))).status).toBe(415);
      expect(proxy.mock.for('multipart-1')).toHaveLength(1);
    });

    it('bounds bodies per kind (413) and refuses a slow upload in time (408)', async () => {
      proxy.useKeys([{ secret: 'limits-1' }]);
      const big = await proxy.call(
        '/v1/chat/completions',
        json({ model: 'm', messages: [{ role: 'user', content: 'x'.repeat(1100 * 1024) }] }),
      );
      expect(big.status).toBe(413);
      const form = new FormData();
      form.set('model', 'whisper-1');
      form.set('file', new Blob([Buffer.alloc(1500 * 1024, 1)]), 'a.wav');
      // Within the upload limit (2 MiB) though over the JSON one (1 MiB).
      expect((await proxy.call('/v1/audio/transcriptions', { body: form })).status).toBe(200);

      const slow = await new Promise<number>((resolve, reject) => {
        const { port } = new URL(proxy.base);
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/v1/chat/completions',
            headers: {
              'content-type': 'application/json',
              'content-length': '100',
              'x-gw-internal-token': TOKEN,
              'x-gw-account': encodeCaller(CALLER),
            },
          },
          (res) => resolve(res.statusCode ?? 0),
        );
        req.on('error', reject);
        req.write('{"model":"m",');
        // ...and never the rest.
      });
      expect(slow).toBe(408);
      expect(proxy.mock.for('limits-1')).toHaveLength(1);
    });
  });

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
      form.set('file', new Blob([Buffer.alloc(64, 1)]), 'a.wav');
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
          error: { message: 'bad request body', code: 'invalid_value' },
        });
        expect(proxy.mock.for(`client-${status}-b`)).toHaveLength(0);
        expect(proxy.health.failures).toEqual([]);
      }
    });

    it('counts a 403 or 404 about the model against that key and model only, and fails over', async () => {
      proxy.useKeys([{ secret: 'model-a' }, { secret: 'model-b' }]);
      proxy.mock.set('model-a', {
        status: 404,
        errorBody: {
          error: {
            message: 'The model `gpt-x` does not exist or you do not have access to it.',
            code: 'model_not_found',
          },
        },
      });
      const response = await proxy.call('/v1/chat/completions', json({ model: 'gpt-x', messages: [] }));
      expect(response.status).toBe(200);
      expect(proxy.health.failures).toEqual([['1', 'model']]);
      expect(proxy.mock.for('model-b')).toHaveLength(1);
    });
  });
});
