import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { startGateway, type Gateway, MockUpstream } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What went wrong when forwarding was tried as a new user would, with a subaccount key and a pool
 * pointing at a local upstream that records what it receives. Each case must never reach the
 * upstream (or reach it without what it must not see).
 */
describe('forwarding regressions', () => {
  let gw: Gateway;
  let mock: MockUpstream;
  let tenantKey: string;
  const upstreamSecret = `owner-key-${randomBytes(12).toString('hex')}`;

  /** A request sent byte for byte as written: fetch would resolve `%2e%2e` before sending. */
  function rawRequest(method: string, path: string, key: string): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(gw.baseUrl);
    return new Promise((resolve, reject) => {
      const req = request(
        { host: hostname, port, method, path, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  const chat = (body: string, contentType = 'application/json', headers: Record<string, string> = {}) =>
    gw.request('/v1/chat/completions', {
      method: 'POST',
      key: tenantKey,
      headers: { 'content-type': contentType, ...headers },
      body,
    });

  beforeAll(async () => {
    mock = await MockUpstream.start();
    gw = await startGateway({ env: { GW_KEY_STATE_PREFIX: `gw-test-${randomBytes(6).toString('hex')}:` } });
    const key = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: upstreamSecret, Level: 1, Provider: mock.url },
    });
    expect(key.status).toBe(200);
    const created = await gw.request('/x-users', {
      method: 'POST',
      json: { Name: 'tenant01', Email: 'tenant01@example.com', CreditGranted: 5, AllowModels: 'gpt-4o-mini' },
    });
    expect(created.status).toBe(200);
    tenantKey = ((await created.json()) as { User: { SecretKey: string } }).User.SecretKey;
  });

  afterAll(async () => {
    await gw.stop();
    await mock.stop();
  });

  it('1: never forwards stored-object endpoints (files, batches) with the owner key', async () => {
    for (const path of ['/v1/files', '/v1/batches', '/v1/files/file-abc/content', '/v1/chat/completions']) {
      const response = await gw.request(path, { key: tenantKey });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(await response.json()).toMatchObject({ error: { type: 'not_found_error', code: 'not_found' } });
    }
    const deleted = await gw.request('/v1/files/file-abc', { method: 'DELETE', key: tenantKey });
    expect(deleted.status).toBe(404);
    expect(mock.requests.filter((r) => /files|batches/.test(r.rawPath) || r.method !== 'POST')).toEqual([]);
  });

  it('2: never lets dot segments or encoded slashes leave /v1', async () => {
    for (const path of [
      '/v1/%2e%2e/admin/secret',
      '/v1/%2E%2E/admin/secret',
      '/v1/..%2fadmin/secret',
      '/v1/%2e%2e%5cadmin/secret',
    ]) {
      const response = await rawRequest('GET', path, tenantKey);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
    expect(mock.requests.filter((r) => r.rawPath.includes('admin'))).toEqual([]);
  });

  it('3: checks the model whatever the spelling of the JSON content type', async () => {
    for (const contentType of [
      'Application/JSON',
      'application/json; charset=UTF-8',
      'APPLICATION/JSON;charset=utf-8',
    ]) {
      const response = await chat(JSON.stringify({ model: 'gpt-4o', messages: [] }), contentType);
      expect({ contentType, status: response.status }).toEqual({ contentType, status: 403 });
      expect(await response.json()).toMatchObject({
        error: { type: 'permission_error', code: 'model_not_allowed' },
      });
    }
    expect(mock.requests.filter((r) => r.body.model === 'gpt-4o')).toEqual([]);
  });

  it('4: keeps the client from choosing the organisation or project of the owner key', async () => {
    const before = mock.requests.length;
    const response = await chat(JSON.stringify({ model: 'gpt-4o-mini', messages: [] }), 'application/json', {
      'OpenAI-Organization': 'org-someone-else',
      'OpenAI-Project': 'proj-someone-else',
    });
    expect(response.status).toBe(200);
    const seen = mock.requests.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers['openai-organization']).toBeUndefined();
    expect(seen[0]?.headers['openai-project']).toBeUndefined();
  });

  it('5: refuses a body whose model is missing or not a string before any routing', async () => {
    const before = mock.requests.length;
    for (const body of [
      '{"messages":[]}',
      '{"model":null}',
      '{"model":5}',
      '{"model":["gpt-4o"]}',
      '{"model":""}',
    ]) {
      const response = await chat(body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(await response.json()).toMatchObject({
        error: { type: 'invalid_request_error', code: 'invalid_request' },
      });
    }
    expect(mock.requests.length).toBe(before);
  });

  it('6: a burst of hang-ups on reused idle connections puts no key to sleep and fails no request', async () => {
    const burst = () =>
      Promise.all(
        Array.from({ length: 12 }, () => chat(JSON.stringify({ model: 'gpt-4o-mini', messages: [] }))),
      );
    expect((await burst()).map((response) => response.status)).toEqual(Array(12).fill(200));
    mock.hangUpIdleSockets();
    const second = await burst();
    expect(mock.hungUp).toBeGreaterThan(0);
    expect(second.map((response) => response.status)).toEqual(Array(12).fill(200));
    const conf = (await (await gw.request('/x-conf')).json()) as { SleepingKeys: unknown[] };
    expect(conf.SleepingKeys).toEqual([]);
  });
});
