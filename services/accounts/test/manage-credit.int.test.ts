import { createUser, expectError, uniqueName } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { balanceNano, conservation, moneyState } from './accounts-helpers.js';
import { NANO, useManageGateway, type UpdateBody } from './manage-fixture.js';

describe('PUT|POST /x-users/{identifier}: recharge, claw-back and Idempotency-Key', () => {
  const manage = useManageGateway();
  const { put, del } = manage;

  it('recharges with positive CreditGranted and claws back with a negative one minus the 0.2 USD fee, never below zero', async () => {
    const parent = await createUser(manage.gw, { credit: 10 });
    const child = await createUser(manage.gw, { parentKey: parent.key, credit: 2 });
    const recharge = await put(child.id, { CreditGranted: 3, Days: 30 }, parent.key);
    expect(recharge.status).toBe(200);
    expect(((await recharge.json()) as UpdateBody).User.Balance).toBe(5);
    expect(await balanceNano(manage.database, parent.id)).toBe(5n * NANO);
    const clawed = await put(child.id, { CreditGranted: -1.5 }, parent.key);
    expect(clawed.status).toBe(200);
    expect(((await clawed.json()) as UpdateBody).User.Balance).toBe(3.5);
    expect(await balanceNano(manage.database, parent.id)).toBe(6_300_000_000n);
    const before = await moneyState(manage.database);
    await expectError(await put(child.id, { CreditGranted: -3.6 }, parent.key), 400, 'insufficient_credit');
    await expectError(await put(child.id, { CreditGranted: 100 }, parent.key), 400, 'insufficient_credit');
    expect(await moneyState(manage.database)).toBe(before);
    // Root claws back: the credit is un-minted.
    const rootChild = await createUser(manage.gw, { credit: 4 });
    expect((await put(rootChild.id, { CreditGranted: -1 })).status).toBe(200);
    expect(await balanceNano(manage.database, rootChild.id)).toBe(3n * NANO);
    const check = await conservation(manage.database);
    expect(check.difference).toBe(0n);
    expect(check.transfersNet).toBe(0n);
  });

  it('replays an Idempotency-Key with the same body and refuses another body with 409', async () => {
    const parent = await createUser(manage.gw, { credit: 10 });
    const child = await createUser(manage.gw, { parentKey: parent.key, credit: 2 });
    const headers = { 'idempotency-key': `recharge-${child.id}` };
    const first = await put(child.id, { CreditGranted: 1 }, parent.key, headers);
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const second = await put(child.id, { CreditGranted: 1 }, parent.key, headers);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(firstBody);
    expect(await balanceNano(manage.database, child.id)).toBe(3n * NANO);
    const before = await moneyState(manage.database);
    await expectError(await put(child.id, { CreditGranted: 2 }, parent.key, headers), 409, 'conflict');
    expect(await moneyState(manage.database)).toBe(before);

    // Create: a replay answers the same account (the secret key is shown once only).
    const name = uniqueName('idem');
    const createHeaders = { 'idempotency-key': `create-${name}`, 'content-type': 'application/json' };
    const createBody = JSON.stringify({ Name: name, Email: `${name}@example.com`, CreditGranted: 2 });
    const made = await manage.gw.request('/x-users', {
      method: 'POST',
      key: parent.key,
      body: createBody,
      headers: createHeaders,
    });
    const again = await manage.gw.request('/x-users', {
      method: 'POST',
      key: parent.key,
      body: createBody,
      headers: createHeaders,
    });
    expect([made.status, again.status]).toEqual([200, 200]);
    const madeBody = (await made.json()) as { User: { ID: number; SecretKey: string } };
    const againBody = (await again.json()) as { User: { ID: number; SecretKey: string } };
    expect(againBody.User.ID).toBe(madeBody.User.ID);
    expect(madeBody.User.SecretKey).toMatch(/^sk-gw-/);
    expect(againBody.User.SecretKey).toBe('');
    const beforeConflict = await moneyState(manage.database);
    await expectError(
      await manage.gw.request('/x-users', {
        method: 'POST',
        key: parent.key,
        json: { Name: name, Email: `${name}@example.com`, CreditGranted: 3 },
        headers: { 'idempotency-key': `create-${name}` },
      }),
      409,
      'conflict',
    );
    expect(await moneyState(manage.database)).toBe(beforeConflict);

    // Ten concurrent deliveries of one keyed create: one account, one grant, nine replays.
    const racing = uniqueName('race');
    const raceHeaders = { 'idempotency-key': `create-${racing}`, 'content-type': 'application/json' };
    const raceBody = JSON.stringify({ Name: racing, Email: `${racing}@example.com`, CreditGranted: 2 });
    const raced = await Promise.all(
      Array.from({ length: 10 }, () =>
        manage.gw.request('/x-users', {
          method: 'POST',
          key: parent.key,
          body: raceBody,
          headers: raceHeaders,
        }),
      ),
    );
    expect(raced.map((response) => response.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(raced.filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(
      9,
    );
    const raceIds = await Promise.all(
      raced.map(async (response) => ((await response.json()) as { User: { ID: number } }).User.ID),
    );
    expect(new Set(raceIds).size).toBe(1);
    expect(
      await manage.database.query('SELECT id FROM accounts.accounts WHERE name = $1', [racing]),
    ).toHaveLength(1);

    // Delete: the replay answers the first refund, and nothing more moves.
    const deleteHeaders = { 'idempotency-key': `delete-${madeBody.User.ID}` };
    const gone = await del(madeBody.User.ID, parent.key, deleteHeaders);
    expect(gone.status).toBe(200);
    const goneBody = await gone.text();
    const beforeReplay = await moneyState(manage.database);
    const replay = await del(madeBody.User.ID, parent.key, deleteHeaders);
    expect(replay.status).toBe(200);
    expect(await replay.text()).toBe(goneBody);
    expect(await moneyState(manage.database)).toBe(beforeReplay);
    expect((await conservation(manage.database)).difference).toBe(0n);
  });
});
