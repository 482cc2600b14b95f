import { AppError, createGrpcClient, usd, type PromiseClient } from '@gw/kit';
import { accounts } from '@gw/proto';
import {
  createTestDatabase,
  createUser,
  expectError,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceNano, conservation, moneyState } from './accounts-helpers.js';

const today = () => new Date().toISOString().slice(0, 10);

describe('POST /x-root and the Transfer RPC', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let client: PromiseClient<accounts.AccountsServiceClient>;

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url });
    client = createGrpcClient(
      accounts.AccountsServiceClient,
      gw.env.ACCOUNTS_ADDR ?? '',
      gw.env.GW_INTERNAL_TOKEN ?? '',
    );
  });

  afterAll(async () => {
    (client as PromiseClient<accounts.AccountsServiceClient> | undefined)?.close();
    await (gw as Gateway | undefined)?.stop();
    await (database as TestDatabase | undefined)?.drop();
  });

  it('refuses /x-root to anyone but root, and the self phrase for root', async () => {
    const child = await createUser(gw);
    await expectError(
      await gw.request('/x-root', {
        method: 'POST',
        key: child.key,
        json: { confirm: `${today()}-ROTATE-ROOT` },
      }),
      403,
      'forbidden',
    );
    await expectError(
      await gw.request('/x-root', { method: 'POST', json: { confirm: `${today()}-ROTATE-SELF` } }),
      400,
      'invalid_request',
    );
    await expectError(
      await gw.request('/x-root', {
        method: 'POST',
        json: { confirm: `${today()}-ROTATE-ROOT`, name: 'someone' },
      }),
      400,
      'invalid_request',
    );
    expect((await gw.request('/dashboard/status')).status).toBe(200);
  });

  it('refuses a self rotation with the wrong confirmation phrase and keeps the key', async () => {
    const user = await createUser(gw, { name: 'rotator2' });
    await expectError(
      await gw.request('/x-self', {
        method: 'POST',
        key: user.key,
        json: { confirm: '2001-01-01-ROTATE-SELF' },
      }),
      400,
      'invalid_request',
    );
    expect((await gw.request('/dashboard/status', { key: user.key })).status).toBe(200);
  });

  it('refuses a weak self-chosen key, keeping the old one, and uses a strong one', async () => {
    const child = await createUser(gw, { credit: 2 });
    const rotate = (key: string) =>
      gw.request('/x-self', {
        method: 'POST',
        key: child.key,
        json: { confirm: `${today()}-ROTATE-SELF`, key },
      });
    for (const weak of [
      'short-Key-1',
      'a'.repeat(40),
      'abcdefghijklmnopqrstuvwxyz0123456789',
      'aB1aB1aB1aB1aB1aB1aB1aB1aB1aB1aB1aB1',
    ]) {
      const body = await expectError(await rotate(weak), 400, 'invalid_request', 'key must');
      expect(body.error.message).not.toContain(weak);
    }
    expect((await gw.request('/dashboard/status', { key: child.key })).status).toBe(200);
    const strong = 'Zq7-wP3_kX9mB2nR5tY8vC1dF4gH6jL0sT';
    const rotated = await rotate(strong);
    expect(rotated.status).toBe(200);
    expect(((await rotated.json()) as { rotate: { key: string } }).rotate.key).toBe(strong);
    await waitFor(
      async () => (await gw.request('/dashboard/status', { key: strong })).status === 200,
      'the chosen key',
    );
  });

  it('rotates the root key: the old one is refused at once, the new one works', async () => {
    const response = await gw.request('/x-root', {
      method: 'POST',
      json: { confirm: `${today()}-ROTATE-ROOT`, name: 'root' },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { rotate: { action: string; key: string; name: string } };
    expect(body.rotate).toMatchObject({ action: 'rotate_root', name: 'root' });
    expect((await gw.request('/dashboard/status')).status).toBe(401);
    expect((await gw.request('/dashboard/status', { key: body.rotate.key })).status).toBe(200);
    gw.rootKey = body.rotate.key;
  });

  it('moves credit both ways between a caller and an account it manages, exactly', async () => {
    const parent = await createUser(gw, { credit: 10 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });

    const out = await client.transfer({
      callerId: BigInt(parent.id),
      identifier: String(child.id),
      amountNano: usd(3),
      idempotencyKey: 'tr-1',
    });
    expect(out).toMatchObject({ callerBalanceNano: usd(5), targetBalanceNano: usd(5) });
    const back = await client.transfer({
      callerId: BigInt(parent.id),
      identifier: child.name,
      amountNano: -usd('1.5'),
      idempotencyKey: 'tr-2',
    });
    // A claw-back takes the 0.2 USD fee too: the child gives 1.5, the parent gets 1.3.
    expect(back).toMatchObject({ callerBalanceNano: usd('6.3'), targetBalanceNano: usd('3.5') });

    const replay = await client.transfer({
      callerId: BigInt(parent.id),
      identifier: String(child.id),
      amountNano: usd(3),
      idempotencyKey: 'tr-1',
    });
    // A replay answers what the first call answered and moves nothing again.
    expect(replay.targetBalanceNano).toBe(usd(5));
    expect(await balanceNano(database, child.id)).toBe(usd('3.5'));
    expect((await conservation(database)).difference).toBe(0n);
  });

  it('refuses a zero, overdrawn or out-of-scope transfer and moves nothing', async () => {
    const parent = await createUser(gw, { credit: 4 });
    const child = await createUser(gw, { parentKey: parent.key, credit: 2 });
    const stranger = await createUser(gw);
    const before = await moneyState(database);
    const attempts = [
      { callerId: BigInt(parent.id), identifier: String(child.id), amountNano: 0n, idempotencyKey: '' },
      { callerId: BigInt(parent.id), identifier: String(child.id), amountNano: usd(3), idempotencyKey: '' },
      { callerId: BigInt(parent.id), identifier: String(child.id), amountNano: -usd(3), idempotencyKey: '' },
      {
        callerId: BigInt(parent.id),
        identifier: String(stranger.id),
        amountNano: usd(1),
        idempotencyKey: '',
      },
      { callerId: BigInt(child.id), identifier: String(parent.id), amountNano: usd(1), idempotencyKey: '' },
    ];
    const codes = [];
    for (const attempt of attempts) {
      const error = await client.transfer(attempt).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      codes.push((error as AppError).code);
    }
    expect(codes).toEqual([
      'invalid_request',
      'insufficient_credit',
      'insufficient_credit',
      'forbidden',
      'forbidden',
    ]);
    expect(await moneyState(database)).toBe(before);
  });
});
