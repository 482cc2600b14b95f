import { AI_ENDPOINTS, type AiEndpoint, type CallerIdentity } from '@gw/kit';
import { wavFile } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { json, useForwardingProxy } from './forwarding-fixture.js';

/**
 * One pipeline for every transport: whatever the catalogue says an endpoint needs is checked the
 * same way over HTTP and over WebSocket (realtime), walking every entry of the catalogue.
 */
describe('the call pipeline over the whole catalogue, WebSocket entries included', () => {
  const proxy = useForwardingProxy();

  /** A minimal valid request for each endpoint. */
  const sample = (path: string) => {
    if (/\/v1\/images\/(edits|variations)|\/v1\/audio\/t/.test(path)) {
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

  /** Calls the endpoint the way its transport does; answers the status (101: a session opened). */
  const callEndpoint = async (
    endpoint: AiEndpoint,
    caller: Partial<CallerIdentity>,
  ): Promise<{ status: number; code?: string; retryAfter?: string }> => {
    if (endpoint.websocket) {
      const answer = await proxy.upgrade(`${endpoint.path}?model=m`, { caller });
      const code = answer.body
        ? (JSON.parse(answer.body) as { error: { code: string } }).error.code
        : undefined;
      return { status: answer.status, code, retryAfter: answer.headers['retry-after'] as string | undefined };
    }
    const response = await proxy.call(endpoint.path, {
      method: endpoint.method,
      caller,
      ...(endpoint.method === 'GET' ? {} : sample(endpoint.path)),
    });
    // Anthropic's error shape (the Messages API) names only the type.
    const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; type: string } };
    return {
      status: response.status,
      code: body.error?.code ?? body.error?.type,
      retryAfter: response.headers.get('retry-after') ?? undefined,
    };
  };
  const served = (status: number) => (status === 101 || status === 200 ? 'served' : status);
  /** The pool for an endpoint: the Messages API is served by anthropic keys only. */
  const useKeysFor = (endpoint: AiEndpoint, secret: string) =>
    proxy.useKeys([{ secret, type: endpoint.dialect === 'anthropic' ? 'anthropic' : 'standard' }]);
  const naming = AI_ENDPOINTS.filter((endpoint) => endpoint.model !== 'none');

  it('walks WebSocket entries too', () => {
    expect(AI_ENDPOINTS.some((endpoint) => endpoint.websocket)).toBe(true);
  });

  it('refuses every endpoint that Resources leave out, on both transports, before upstream', async () => {
    // The model listing is the edge's: the proxy never serves it.
    for (const endpoint of AI_ENDPOINTS.filter((entry) => !entry.answeredByEdge)) {
      useKeysFor(endpoint, 'catalogue-resources');
      const other = AI_ENDPOINTS.find((e) => e.path !== endpoint.path && !e.alwaysAllowed)?.path ?? '';
      const refused = await callEndpoint(endpoint, { resources: other });
      expect({ path: endpoint.path, status: served(refused.status) }).toEqual({
        path: endpoint.path,
        status: endpoint.alwaysAllowed ? 'served' : 403,
      });
      const allowed = await callEndpoint(endpoint, { resources: endpoint.path });
      expect({ path: endpoint.path, status: served(allowed.status) }).toEqual({
        path: endpoint.path,
        status: 'served',
      });
    }
  });

  it('holds every endpoint that names a model to AllowModels and AllowLevels, on both transports', async () => {
    for (const endpoint of naming) {
      useKeysFor(endpoint, 'catalogue-allowlists');
      const model = await callEndpoint(endpoint, { allowModels: 'someone-else*' });
      expect({ path: endpoint.path, status: model.status, code: model.code }).toEqual({
        path: endpoint.path,
        status: 403,
        code: endpoint.dialect === 'anthropic' ? 'permission_error' : 'model_not_allowed',
      });
      const level = await callEndpoint(endpoint, { allowLevels: '7' });
      expect({ path: endpoint.path, status: level.status }).toEqual({ path: endpoint.path, status: 403 });
    }
  });

  it('counts every call in its rate-limit windows and refuses the one over, with Retry-After, on both transports', async () => {
    for (const [i, endpoint] of naming.entries()) {
      useKeysFor(endpoint, 'catalogue-limits');
      const caller = { accountId: String(100 + i), limits: { rpm: 1 } };
      expect({ path: endpoint.path, status: served((await callEndpoint(endpoint, caller)).status) }).toEqual({
        path: endpoint.path,
        status: 'served',
      });
      const over = await callEndpoint(endpoint, caller);
      expect({ path: endpoint.path, status: over.status, retry: Number(over.retryAfter) > 0 }).toEqual({
        path: endpoint.path,
        status: 429,
        retry: true,
      });
    }
  });
});
