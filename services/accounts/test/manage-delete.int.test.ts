import { createUser, expectError, waitFor } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { balanceNano, conservation, moneyState } from './accounts-helpers.js';
import { useManageGateway } from './manage-fixture.js';

describe('DELETE /x-users/{identifier}: refund, fee, who may delete, and the access matrix', () => {
  const manage = useManageGateway();
  const { put, del } = manage;

  it('deletes with a refund to the parent minus min(0.2, remainder), and kills the key at once', async () => {
    const parent = await createUser(manage.gw, { credit: 20 });
    const cases: Array<[number, number, number]> = [
      // [remainder to leave, expected refund, expected fee]
      [0.15, 0, 0.15],
      [0.2, 0, 0.2],
      [0, 0, 0],
      [5, 4.8, 0.2],
    ];
    for (const [remainder, refund, fee] of cases) {
      const child = await createUser(manage.gw, { parentKey: parent.key, credit: 5 });
      if (remainder < 5) {
        expect((await put(child.id, { CreditGranted: -(5 - remainder) }, parent.key)).status).toBe(200);
      }
      const childLots = await manage.database.query<{ expires_at: Date }>(
        'SELECT expires_at FROM accounts.credit_lots WHERE account_id = $1',
        [child.id],
      );
      const parentBefore = await balanceNano(manage.database, parent.id);
      const response = await del(child.id, parent.key);
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        Action: string;
        User: Record<string, unknown>;
        message: string;
      };
      expect(body).toMatchObject({
        Action: 'delete',
        User: { ID: child.id, Name: child.name, RefundedBalance: refund, TransactionFee: fee },
      });
      expect(typeof body.message).toBe('string');
      expect(await balanceNano(manage.database, parent.id)).toBe(
        parentBefore + BigInt(Math.round(refund * 1e9)),
      );
      await expectError(
        await manage.gw.request('/dashboard/status', { key: child.key }),
        401,
        'unauthenticated',
      );
      await expectError(
        await manage.gw.request(`/x-users/${child.id}`, { key: parent.key }),
        404,
        'not_found',
      );
      if (refund > 0) {
        const [lot] = await manage.database.query<{ expires_at: Date; created_at: Date }>(
          `SELECT l.expires_at, l.created_at FROM accounts.credit_lots l JOIN accounts.ledger g ON g.id = l.ledger_id
           WHERE g.kind = 'refund' AND g.account_id = $1 AND g.counterparty_id = $2`,
          [parent.id, child.id],
        );
        expect(lot).toBeDefined();
        // The refund keeps the expiry the child's credit had, which is within 180 days of the
        // delete (decisions §4); compared exactly, since the time from create to delete varies.
        expect(childLots).toHaveLength(1);
        expect(lot!.expires_at.getTime()).toBe(childLots[0]!.expires_at.getTime());
        expect(lot!.expires_at.getTime()).toBeLessThanOrEqual(lot!.created_at.getTime() + 180 * 86_400_000);
      }
      const rows = await manage.database.query<{ kind: string; amount_nano: string }>(
        'SELECT kind, amount_nano::text FROM accounts.ledger WHERE idempotency_key = $1 AND account_id = $2 ORDER BY kind',
        [`delete:${child.id}`, child.id],
      );
      if (remainder > 0) {
        expect(rows.find((row) => row.kind === 'fee')?.amount_nano).toBe(
          String(-BigInt(Math.round(fee * 1e9))),
        );
      }
    }
    // The name and e-mail are free again.
    const check = await conservation(manage.database);
    expect(check.difference).toBe(0n);
    expect(check.transfersNet).toBe(0n);
  });

  it('refuses a deleted account key on another edge replica that had it cached', async () => {
    const replica = await manage.gw.startEdgeReplica();
    const child = await createUser(manage.gw, { credit: 2 });
    expect((await manage.gw.request('/dashboard/status', { key: child.key, base: replica })).status).toBe(
      200,
    );
    expect((await del(child.id)).status).toBe(200);
    await waitFor(
      async () =>
        (await manage.gw.request('/dashboard/status', { key: child.key, base: replica })).status === 401,
      'deleted key refused on the replica',
    );
  });

  it('lets only the parent or an owner delete, refuses an account with subaccounts, and lets one of two concurrent deletes win', async () => {
    const grand = await createUser(manage.gw, { credit: 20 });
    const parent = await createUser(manage.gw, { parentKey: grand.key, credit: 10 });
    const child = await createUser(manage.gw, { parentKey: parent.key, credit: 3 });
    const sibling = await createUser(manage.gw, { parentKey: parent.key, credit: 2 });
    const grandchild = await createUser(manage.gw, { parentKey: child.key, credit: 2 });
    const before = await moneyState(manage.database);
    // Grandparent (not an owner), sibling, the child itself and its own child: 403, nothing changes.
    for (const key of [grand.key, sibling.key, child.key, grandchild.key]) {
      await expectError(await del(child.id, key), 403, 'forbidden');
    }
    // With a subaccount: 400 naming it.
    const refused = await expectError(await del(child.id, parent.key), 400, 'invalid_request');
    expect(refused.error.message).toContain(grandchild.name);
    await expectError(await del(999_999, parent.key), 404, 'not_found');
    await expectError(await del('L1', parent.key), 400, 'invalid_request');
    expect(await moneyState(manage.database)).toBe(before);
    // Root is an owner above the grandchild: allowed.
    expect((await del(grandchild.id)).status).toBe(200);
    const [first, second] = await Promise.all([del(child.id, parent.key), del(child.id, parent.key)]);
    expect([first.status, second.status].sort()).toEqual([200, 404]);
    const refunds = await manage.database.query(
      "SELECT id FROM accounts.ledger WHERE idempotency_key = $1 AND kind = 'fee'",
      [`delete:${child.id}`],
    );
    expect(refunds).toHaveLength(1);
    expect((await conservation(manage.database)).difference).toBe(0n);
  });

  it('answers the access matrix for read, update and delete of A1 (self, parent, ancestor, sibling, child, cousin, root)', async () => {
    // root → O(owner-less top) → A → A1 → A11, A → A2; root → B → B1
    const top = await createUser(manage.gw, { credit: 30 });
    const a = await createUser(manage.gw, { parentKey: top.key, credit: 15 });
    const a1 = await createUser(manage.gw, { parentKey: a.key, credit: 5 });
    const a11 = await createUser(manage.gw, { parentKey: a1.key, credit: 2 });
    const a2 = await createUser(manage.gw, { parentKey: a.key, credit: 2 });
    const b = await createUser(manage.gw, { credit: 5 });
    const b1 = await createUser(manage.gw, { parentKey: b.key, credit: 2 });
    const actors: Record<string, string> = {
      self: a1.key,
      parent: a.key,
      ancestor: top.key,
      sibling: a2.key,
      child: a11.key,
      cousin: b1.key,
      other: b.key,
      root: manage.gw.rootKey,
    };
    const expected: Record<string, { read: number; update: number; delete: number }> = {
      self: { read: 403, update: 403, delete: 403 },
      parent: { read: 200, update: 200, delete: 400 },
      ancestor: { read: 200, update: 200, delete: 403 },
      sibling: { read: 403, update: 403, delete: 403 },
      child: { read: 403, update: 403, delete: 403 },
      cousin: { read: 403, update: 403, delete: 403 },
      other: { read: 403, update: 403, delete: 403 },
      root: { read: 200, update: 200, delete: 400 },
    };
    const before = await conservation(manage.database);
    for (const identifier of [String(a1.id), a1.name, `${a1.name}@example.com`, a1.dna]) {
      for (const [actor, key] of Object.entries(actors)) {
        const read = await manage.gw.request(`/x-dna/${encodeURIComponent(identifier)}`, { key });
        // Self-update of a non-basic field is refused like any other out-of-scope write.
        const update = await put(identifier, { HardLimit: 7 }, key);
        const remove = await del(identifier, key);
        const got = { read: read.status, update: update.status, delete: remove.status };
        // A DNA path on /x-dna names a subtree, which A1 may list under its own path.
        const readSelf = actor === 'self' && identifier === a1.dna ? { read: 200 } : {};
        expect(got, `${actor} on ${identifier}`).toEqual({ ...expected[actor], ...readSelf });
        for (const response of [read, update, remove]) {
          if (response.status === 403) {
            expect(await response.text()).not.toContain(a1.name);
          }
        }
      }
    }
    expect((await conservation(manage.database)).difference).toBe(before.difference);
  });
});
