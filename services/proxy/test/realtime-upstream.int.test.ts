import { readFileSync } from 'node:fs';
import { waitFor, waitForRoute } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openSession, session, useRealtimeGateway } from './realtime-fixture.js';

/**
 * The upstream side of a realtime session: the next key when upstream refuses one, and a flood
 * relayed to a slow reader without the proxy holding it.
 */
describe('GET /v1/realtime through the gateway: the upstream socket', () => {
  const rt = useRealtimeGateway();
  const { addKey, secret } = rt;

  it('opens the session on the next key when upstream refuses one', async () => {
    const refusing = secret('rt-refuse');
    const serving = secret('rt-serve');
    rt.mock.set(refusing, { status: 500 });
    const ids = [await addKey(2, refusing), await addKey(2, serving)];
    expect(
      (await rt.gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-rt-fo=2' } })).status,
    ).toBe(200);
    await waitForRoute(rt.gw, 'gpt-rt-fo', 2, ids);

    for (let i = 0; i < 2; i += 1) {
      const { ws, frames } = session(await openSession(rt.gw, 'gpt-rt-fo', rt.gw.rootKey));
      await waitFor(
        async () => frames.some((frame) => frame.type === 'session.created'),
        'session.created',
        3_000,
        20,
      );
      ws.close();
    }
    expect(rt.mock.for(refusing)).toHaveLength(1);
    expect(rt.mock.for(serving)).toHaveLength(2);
  });

  it('relays 200 MB to a slow reader without the proxy holding it (RSS grows less than 50 MB)', async () => {
    const k = secret('rt-flood');
    rt.mock.set(k, { floodBytes: 200 * 1024 * 1024 });
    const keyId = await addKey(3, k);
    expect(
      (await rt.gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-rt-flood=3' } })).status,
    ).toBe(200);
    await waitForRoute(rt.gw, 'gpt-rt-flood', 3, [keyId]);
    const proxyPid = rt.gw.processes.get('proxy')?.child.pid ?? 0;
    const rss = () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proxyPid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

    const url = `${rt.gw.baseUrl.replace('http', 'ws')}/v1/realtime?model=gpt-rt-flood`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${rt.gw.rootKey}` } });
    const reading = { received: 0, done: false };
    ws.on('message', (data: Buffer) => {
      reading.received += data.length;
      if (data.length < 1024 && data.toString().includes('response.done')) {
        reading.done = true;
      }
    });
    await new Promise((resolve) => ws.once('open', resolve));
    const baseline = rss();
    let peak = baseline;
    ws.send(JSON.stringify({ type: 'response.create' }));
    // A slow reader: mostly paused, reading in short bursts.
    while (!reading.done) {
      ws.pause();
      await new Promise((resolve) => setTimeout(resolve, 40));
      peak = Math.max(peak, rss());
      ws.resume();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    ws.close();
    expect(reading.received).toBeGreaterThan(200 * 1024 * 1024);
    expect(peak - baseline).toBeLessThan(50 * 1024 * 1024);
  }, 300_000);
});
