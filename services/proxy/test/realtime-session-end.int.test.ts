import { createGrpcClient, usd } from '@gw/kit';
import { accounts as accountsProto } from '@gw/proto';
import { waitFor, waitForRoute } from '@gw/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openSession, session, useRealtimeGateway } from './realtime-fixture.js';

/**
 * A realtime session ends within a second of its account being disabled, suspended or deleted, its
 * key rotated or its balance spent, and a binary frame is checked like a text one.
 */
describe('GET /v1/realtime through the gateway: sessions ended when their account changes', () => {
  const rt = useRealtimeGateway();
  const { addKey, secret } = rt;

  /** A subaccount allowed the realtime models, with its key (created by root or by `parentKey`). */
  async function realtimeUser(name: string, parentKey?: string): Promise<{ id: number; key: string }> {
    const created = await rt.gw.request('/x-users', {
      method: 'POST',
      ...(parentKey === undefined ? {} : { key: parentKey }),
      json: { Name: name, Email: `${name}@example.com`, CreditGranted: 2, AllowModels: 'gpt-rt*' },
    });
    expect(created.status).toBe(200);
    const user = ((await created.json()) as { User: { ID: number; SecretKey: string } }).User;
    return { id: user.ID, key: user.SecretKey };
  }

  /** How a session ended: its close code and the error event it got first. */
  async function endedWithin(
    opened: { ws: WebSocket; frames: Array<Record<string, unknown>>; closed: Promise<number> },
    budgetMs: number,
  ) {
    await waitFor(async () => opened.ws.readyState === WebSocket.CLOSED, 'the session closed', budgetMs, 20);
    return { code: await opened.closed, error: opened.frames.find((frame) => frame.type === 'error') };
  }

  /** A Level of its own for the tests that end sessions: `gpt-rt-end*` on Level 4. */
  async function endingLevel() {
    const k = secret('rt-end');
    const keyId = await addKey(4, k);
    expect(
      (await rt.gw.request('/x-config', { method: 'PUT', json: { LEVEL_MAPPER: 'gpt-rt-end*=4' } })).status,
    ).toBe(200);
    await waitForRoute(rt.gw, 'gpt-rt-end-1', 4, [keyId]);
  }

  describe('with a subaccount allowed gpt-rt*, on a Level of its own', () => {
    beforeAll(endingLevel);

    it.each([
      [
        'disabled',
        (id: number) => rt.gw.request(`/x-users/${id}`, { method: 'PUT', json: { Status: false } }),
      ],
      [
        'suspended',
        (id: number) => rt.gw.request(`/x-users/${id}`, { method: 'PUT', json: { Suspended: true } }),
      ],
      ['deleted', (id: number) => rt.gw.request(`/x-users/${id}`, { method: 'DELETE' })],
    ])('ends a session within a second of its account being %s', async (what, change) => {
      const user = await realtimeUser(`rtend${what}`);
      const opened = session(await openSession(rt.gw, 'gpt-rt-end-1', user.key));
      const { frames } = opened;
      await waitFor(
        async () => frames.some((frame) => frame.type === 'session.created'),
        'session.created',
        3_000,
        20,
      );
      expect((await change(user.id)).status).toBe(200);
      const ended = await endedWithin(opened, 1_000);
      expect(ended.code).toBe(1008);
      expect(ended.error).toMatchObject({ error: { code: 'forbidden' } });
    });

    it('ends the session of an account below one being suspended', async () => {
      const parent = await realtimeUser('rtendparent');
      const user = await realtimeUser('rtendbelow', parent.key);
      const opened = session(await openSession(rt.gw, 'gpt-rt-end-1', user.key));
      await waitFor(
        async () => opened.frames.some((frame) => frame.type === 'session.created'),
        'session.created',
      );
      const suspended = await rt.gw.request(`/x-users/${parent.id}`, {
        method: 'PUT',
        json: { Suspended: true },
      });
      expect(suspended.status).toBe(200);
      const ended = await endedWithin(opened, 1_000);
      expect(ended.code).toBe(1008);
      expect(ended.error).toMatchObject({ error: { message: expect.stringContaining('above this one') } });
    });

    it('ends a session within a second of its key being rotated', async () => {
      const user = await realtimeUser('rtendrotated');
      const opened = session(await openSession(rt.gw, 'gpt-rt-end-1', user.key));
      const { frames } = opened;
      await waitFor(
        async () => frames.some((frame) => frame.type === 'session.created'),
        'session.created',
        3_000,
        20,
      );
      const rotated = await rt.gw.request('/x-self', {
        method: 'POST',
        key: user.key,
        json: { confirm: `${new Date().toISOString().slice(0, 10)}-ROTATE-SELF` },
      });
      expect(rotated.status).toBe(200);
      expect((await endedWithin(opened, 1_000)).code).toBe(1008);
    });

    it('ends a session within a second of its balance reaching the floor for AI calls', async () => {
      const user = await realtimeUser('rtendbalance');
      const opened = session(await openSession(rt.gw, 'gpt-rt-end-1', user.key));
      await waitFor(
        async () => opened.frames.some((frame) => frame.type === 'session.created'),
        'session.created',
      );
      const accounts = createGrpcClient(
        accountsProto.AccountsServiceClient,
        rt.gw.env.ACCOUNTS_ADDR ?? '',
        rt.gw.env.GW_INTERNAL_TOKEN ?? '',
      );
      await accounts.debit({
        accountId: BigInt(user.id),
        amountNano: usd(5),
        idempotencyKey: 'evt_rt_balance_floor',
      });
      accounts.close();
      const ended = await endedWithin(opened, 1_000);
      expect(ended.code).toBe(1008);
      expect(ended.error).toMatchObject({ error: { message: expect.stringContaining('balance') } });
    });

    it('checks the model named in a binary frame like one in a text frame', async () => {
      const user = await realtimeUser('rtbinary');
      const { ws, frames } = session(await openSession(rt.gw, 'gpt-rt-end-1', user.key));
      await waitFor(
        async () => frames.some((frame) => frame.type === 'session.created'),
        'session.created',
        3_000,
        20,
      );
      const before = rt.mock.realtimeFrames.length;
      ws.send(Buffer.from(JSON.stringify({ type: 'session.update', session: { model: 'other-model' } })), {
        binary: true,
      });
      await waitFor(async () => frames.some((frame) => frame.type === 'error'), 'error event', 3_000, 20);
      expect(frames.find((frame) => frame.type === 'error')).toMatchObject({
        error: { code: 'model_not_allowed' },
      });
      expect(rt.mock.realtimeFrames.length).toBe(before);
      ws.close();
    });
  });
});
