import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_MODELS } from '@gw/kit';
import {
  createTestDatabase,
  createUser,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The model listing is the edge's own answer from the default price table, filtered by the
 * caller's effective AllowModels; an upstream in the pool must never be asked for it.
 */
describe('GET /dashboard/models, /v1/models, /models', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let upstream: Server;
  const upstreamPaths: string[] = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      upstreamPaths.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'upstream-only-model', object: 'model' }] }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url });
    const provider = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const key = await gw.request('/x-keys', {
      method: 'POST',
      json: { SecretKey: 'sk-listing-0123456789', Level: 1, Provider: provider },
    });
    expect(key.status, await key.clone().text()).toBe(200);
    const config = await gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: '*=1' } });
    expect(config.status, await config.clone().text()).toBe(200);
    // A chat call reaches the upstream: the pool is live, so silence on the listing means something.
    await waitFor(async () => {
      await gw.request('/v1/chat/completions', { method: 'POST', json: { model: 'gpt-4o', messages: [] } });
      return upstreamPaths.includes('/v1/chat/completions');
    }, 'the pool serving chat');
  });

  afterAll(async () => {
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const gpt4o = DEFAULT_MODELS.filter((model) => model.id.startsWith('gpt-4o')).map((model) => model.id);

  it('lists only the models a key restricted to gpt-4o* may use, in all three forms, without asking the upstream', async () => {
    const user = await createUser(gw, { extra: { AllowModels: 'gpt-4o*' } });
    const before = upstreamPaths.length;

    const dashboard = await gw.request('/dashboard/models', { key: user.key });
    expect(dashboard.status).toBe(200);
    const { models } = (await dashboard.json()) as { models: Array<Record<string, unknown>> };
    expect(models.map((model) => model.id)).toEqual(gpt4o);
    expect(models[0]).toEqual({
      id: 'gpt-4o',
      provider: 'openai',
      context_window: 128_000,
      max_output_tokens: 16_384,
    });

    const client = new OpenAI({ apiKey: user.key, baseURL: `${gw.baseUrl}/v1`, maxRetries: 0 });
    const listed = await client.models.list();
    expect(listed.data.map((model) => model.id)).toEqual(gpt4o);
    expect(listed.data[0]).toMatchObject({ id: 'gpt-4o', object: 'model', owned_by: 'openai' });
    expect(typeof listed.data[0]?.created).toBe('number');

    const alias = await gw.request('/models', { key: user.key });
    expect(alias.status).toBe(200);
    const body = (await alias.json()) as { object: string; data: Array<{ id: string }> };
    expect(body.object).toBe('list');
    expect(body.data.map((model) => model.id)).toEqual(gpt4o);

    expect(upstreamPaths.slice(before)).toEqual([]);
  });

  it("narrows by an ancestor's AllowModels, and lists every default model when nothing restricts", async () => {
    const parent = await createUser(gw, { credit: 10, extra: { AllowModels: 'gpt-4o-mini* claude-*' } });
    // The child sets no list of its own: its parent's applies to it.
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const ids = async (key: string) =>
      (
        (await (await gw.request('/dashboard/models', { key })).json()) as { models: Array<{ id: string }> }
      ).models.map((model) => model.id);
    expect(await ids(child.key)).toEqual(
      DEFAULT_MODELS.map((model) => model.id).filter(
        (id) => id.startsWith('gpt-4o-mini') || id.startsWith('claude-'),
      ),
    );
    expect(await ids(gw.rootKey)).toEqual(DEFAULT_MODELS.map((model) => model.id));
    expect(await ids(gw.rootKey)).not.toContain('upstream-only-model');
  });

  it('needs a key', async () => {
    expect((await fetch(`${gw.baseUrl}/v1/models`)).status).toBe(401);
    expect((await fetch(`${gw.baseUrl}/dashboard/models`)).status).toBe(401);
  });
});
