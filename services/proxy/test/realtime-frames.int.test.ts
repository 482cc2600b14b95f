import { createUser, waitFor, waitForRoute } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { openSession, session, useRealtimeGateway } from './realtime-fixture.js';

/**
 * A realtime session through the gateway: frames both ways, every response.done billed, AllowModels
 * on the session and its frames, the request and token limits, and an unknown key refused.
 */
describe('GET /v1/realtime through the gateway: frames, billing, AllowModels and limits', () => {
  const rt = useRealtimeGateway();
  const { addKey, secret, usage } = rt;

  it('forwards frames both ways and bills every response.done once', async () => {
    const k = secret('rt');
    const keyId = await addKey(1, k);
    expect(
      (await rt.gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-rt*=1' } })).status,
    ).toBe(200);
    await waitForRoute(rt.gw, 'gpt-rt-1', 1, [keyId]);

    const { ws, frames } = session(await openSession(rt.gw, 'gpt-rt-1', rt.gw.rootKey));
    await waitFor(
      async () => frames.some((frame) => frame.type === 'session.created'),
      'session.created',
      3_000,
      20,
    );
    expect(rt.mock.for(k)[0]?.headers.authorization).toBe(`Bearer ${k}`);
    expect(rt.mock.for(k)[0]?.headers['x-gw-account']).toBeUndefined();

    ws.send(JSON.stringify({ type: 'response.create' }));
    ws.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(
      async () => frames.filter((frame) => frame.type === 'response.done').length === 2,
      'two responses',
      3_000,
      20,
    );
    await waitFor(
      async () => usage.filter((event) => event.keyId === BigInt(keyId)).length === 2,
      'two usage events',
      5_000,
      20,
    );
    expect(usage.filter((event) => event.keyId === BigInt(keyId))[0]).toMatchObject({
      path: '/v1/realtime',
      modelRequested: 'gpt-rt-1',
      promptTokens: 10n,
      completionTokens: 20n,
      cachedTokens: 2n,
      audioInTokens: 3n,
      audioOutTokens: 5n,
    });

    ws.close();
    await waitFor(async () => rt.mock.realtimeOpen === 0, 'upstream socket closed', 3_000, 20);
    // The session is one request at the proxy, which serves it, timed when its socket closed.
    await waitFor(
      async () =>
        (await (await fetch(`http://${rt.gw.metrics.get('proxy') ?? ''}/metrics`)).text())
          .split('\n')
          .some(
            (line) =>
              line.startsWith('gw_http_request_duration_seconds_count{') &&
              line.includes('route="/v1/realtime"') &&
              line.includes('status="101"') &&
              line.endsWith('} 1'),
          ),
      'the proxy counting the realtime session',
      3_000,
      20,
    );
  });

  it('applies AllowModels to the session and to every frame that names a model', async () => {
    const created = await rt.gw.request('/x-users', {
      method: 'POST',
      json: { Name: 'rtlimited', Email: 'rtlimited@example.com', CreditGranted: 5, AllowModels: 'gpt-rt*' },
    });
    expect(created.status).toBe(200);
    const userKey = ((await created.json()) as { User: { SecretKey: string } }).User.SecretKey;

    expect(await openSession(rt.gw, 'other-model', userKey)).toEqual({ status: 403 });

    const { ws, frames } = session(await openSession(rt.gw, 'gpt-rt-2', userKey));
    await waitFor(
      async () => frames.some((frame) => frame.type === 'session.created'),
      'session.created',
      3_000,
      20,
    );
    ws.send(JSON.stringify({ type: 'session.update', session: { model: 'other-model' } }));
    await waitFor(async () => frames.some((frame) => frame.type === 'error'), 'error event', 3_000, 20);
    expect(frames.find((frame) => frame.type === 'error')).toMatchObject({
      error: { code: 'model_not_allowed' },
    });
    expect(rt.mock.realtimeFrames.some((frame) => frame.type === 'session.update')).toBe(false);

    ws.send(JSON.stringify({ type: 'session.update', session: { model: 'gpt-rt-3' } }));
    await waitFor(
      async () => frames.some((frame) => frame.type === 'session.updated'),
      'session.updated',
      3_000,
      20,
    );
    ws.close();
  });

  it('counts a session as one request at upgrade, and ends it once its token window is spent', async () => {
    const user = await createUser(rt.gw, { extra: { RPM: 1, TPM: 40 } });
    const { ws, frames, closed } = session(await openSession(rt.gw, 'gpt-rt-1', user.key));
    await waitFor(async () => frames.some((frame) => frame.type === 'session.created'), 'session.created');
    // The session was this minute's one request.
    expect(await openSession(rt.gw, 'gpt-rt-1', user.key)).toEqual({ status: 429 });

    // Each response uses 30 tokens: after the first 30 < 40 the session goes on, after the second it ends.
    ws.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(async () => frames.some((frame) => frame.type === 'response.done'), 'first response');
    ws.send(JSON.stringify({ type: 'response.create' }));
    expect(await closed).toBe(1008);
    expect(frames.filter((frame) => frame.type === 'response.done')).toHaveLength(2);
    expect(frames.at(-1)).toMatchObject({ type: 'error', error: { code: 'rate_limited' } });
  });

  it('refuses an unknown key before upgrading', async () => {
    expect(await openSession(rt.gw, 'gpt-rt-1', 'sk-unknown')).toEqual({ status: 401 });
  });
});
