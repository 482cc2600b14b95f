import { request as httpRequest } from 'node:http';
import { AI_ENDPOINTS, AI_RESOURCE_PATHS } from '@gw/kit';
import { wavFile } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { json, useForwardingProxy } from './forwarding-fixture.js';

/**
 * Forwarding safety in-process, on the way upstream: the closed catalogue and the resource
 * allowlists over it, the catalogue path whatever the client spelled, and exact request parsing.
 */
describe('forwarding: what goes upstream', () => {
  const proxy = useForwardingProxy();

  /** A minimal valid request for each catalogue endpoint. */
  const sample = (path: string) => {
    if (
      path.startsWith('/v1/images/edits') ||
      path.startsWith('/v1/images/variations') ||
      path.startsWith('/v1/audio/t')
    ) {
      const form = new FormData();
      form.set('model', 'm');
      // Audio whose duration can be read (an audio upload is metered by it); images take any bytes here.
      form.set('file', new Blob([new Uint8Array(wavFile(1))]), 'a.wav');
      return { body: form };
    }
    return json({
      model: 'm',
      input: 'hello',
      prompt: 'hello',
      messages: [],
      query: 'q',
      documents: ['d'],
      max_tokens: 8,
    });
  };

  describe('the catalogue and the resource allowlists', () => {
    // The model listing is the edge's: the proxy never serves it.
    const endpoints = AI_ENDPOINTS.filter((endpoint) => !endpoint.websocket && !endpoint.answeredByEdge);

    it.each([
      ['none', '', ''],
      ['the owner', '/v1/embeddings /v1/audio/speech', ''],
      ['the account', '', '/v1/embeddings,/v1/audio/speech'],
      ['both, crossing', '/v1/embeddings /v1/audio/speech', '/v1/audio/speech /v1/moderations'],
    ])('serves exactly what %s allows', async (_who, owner, account) => {
      const allowedBy = (list: string, path: string) => list === '' || list.split(/[\s,]+/).includes(path);
      for (const endpoint of endpoints) {
        // The Messages API is served by anthropic keys only.
        proxy.useKeys(
          [
            {
              secret: `resources-${owner}-${account}`,
              type: endpoint.dialect === 'anthropic' ? 'anthropic' : 'standard',
            },
          ],
          { config: { RESOURCES: owner } },
        );
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
        wavFile((1000 - 44) / 2 / 8000), // 1 000 bytes of audio whose duration can be read
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
      form.set('file', new Blob([new Uint8Array(wavFile((1500 * 1024 - 44) / 2 / 8000))]), 'a.wav');
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
              authorization: `Bearer ${proxy.keyFor()}`,
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
});
