import { createGrpcClient, usd, type PromiseClient } from '@gw/kit';
import { accounts } from '@gw/proto';
import {
  AUTH_CACHE_UNTIL_EVENT,
  createTestDatabase,
  createUser,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('admission of AI calls (post-paid, decision 1)', () => {
  let gw: Gateway;
  let database: TestDatabase;
  let client: PromiseClient<accounts.AccountsServiceClient>;

  beforeAll(async () => {
    database = await createTestDatabase();
    gw = await startGateway({ databaseUrl: database.url, env: AUTH_CACHE_UNTIL_EVENT });
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

  const chat = (key: string) =>
    gw.request('/v1/chat/completions', {
      method: 'POST',
      key,
      json: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });

  const refusedForQuota = async (key: string) => {
    const response = await chat(key);
    if (response.status !== 429) {
      return false;
    }
    const body = (await response.json()) as { error: { code: string; type: string } };
    return body.error.code === 'quota_exceeded' && body.error.type === 'insufficient_quota';
  };

  it('stops AI calls on every replica once the balance reaches zero (announced, not waited out), and resumes after a recharge', async () => {
    const user = await createUser(gw, { credit: 2 });
    const replica = `http://${await gw.startProxyReplica()}`;
    // Both proxies cache the account with its 2 USD balance.
    expect((await chat(user.key)).status).not.toBe(429);
    expect(
      (
        await gw.request('/v1/chat/completions', {
          method: 'POST',
          key: user.key,
          base: replica,
          json: { model: 'm', messages: [] },
        })
      ).status,
    ).not.toBe(429);

    await client.debit({ accountId: BigInt(user.id), amountNano: usd(2), idempotencyKey: 'evt_admission_1' });
    await waitFor(() => refusedForQuota(user.key), 'refusal on the first proxy');
    await waitFor(async () => {
      const response = await gw.request('/v1/chat/completions', {
        method: 'POST',
        key: user.key,
        base: replica,
        json: { model: 'm', messages: [] },
      });
      return response.status === 429;
    }, 'refusal on the replica');
    // Management calls are not AI calls: the account can still read its status.
    expect((await gw.request('/dashboard/status', { key: user.key })).status).toBe(200);

    expect(
      (await gw.request(`/x-users/${user.id}`, { method: 'PUT', json: { CreditGranted: 1 } })).status,
    ).toBe(200);
    await waitFor(async () => !(await refusedForQuota(user.key)), 'admission after the recharge');
  });

  it('stops AI calls once the monthly HardLimit is reached, with money left', async () => {
    const user = await createUser(gw, { credit: 10, extra: { HardLimit: 1 } });
    expect(await refusedForQuota(user.key)).toBe(false);
    await client.debit({ accountId: BigInt(user.id), amountNano: usd(1), idempotencyKey: 'evt_admission_2' });
    await waitFor(() => refusedForQuota(user.key), 'refusal at the HardLimit');
  });

  it("stops AI calls on every replica once the UTC day's DailyLimit is reached, with money and month left", async () => {
    const user = await createUser(gw, { credit: 10, extra: { HardLimit: 8 } });
    expect((await gw.request(`/x-users/${user.id}`, { method: 'PUT', json: { DailyLimit: 1 } })).status).toBe(
      200,
    );
    const replica = `http://${await gw.startProxyReplica()}`;
    const refusedOn = async (base: string) => {
      const response = await gw.request('/v1/chat/completions', {
        method: 'POST',
        key: user.key,
        base,
        json: { model: 'gpt-4o-mini', messages: [] },
      });
      const body = await response.text();
      return response.status === 429 && body.includes('DailyLimit');
    };
    // Both proxies cache the account below its DailyLimit.
    await client.debit({
      accountId: BigInt(user.id),
      amountNano: usd('0.5'),
      idempotencyKey: 'evt_admission_3',
    });
    await waitFor(
      async () => !(await refusedOn(gw.baseUrl)) && !(await refusedOn(replica)),
      'both proxies admit',
    );

    await client.debit({
      accountId: BigInt(user.id),
      amountNano: usd('0.5'),
      idempotencyKey: 'evt_admission_4',
    });
    await waitFor(() => refusedOn(gw.baseUrl), 'refusal on the first proxy', 1_000, 20);
    await waitFor(() => refusedOn(replica), 'refusal on the replica', 1_000, 20);
    // Reads still answer.
    expect((await gw.request('/dashboard/status', { key: user.key, base: replica })).status).toBe(200);
  });
});
