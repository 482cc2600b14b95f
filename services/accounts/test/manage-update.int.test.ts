import { createUser, expectError, uniqueName, waitFor } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { moneyState } from './accounts-helpers.js';
import { useManageGateway, type UpdateBody } from './manage-fixture.js';

describe('PUT|POST /x-users/{identifier}: fields, AllowModels and who may change which', () => {
  const manage = useManageGateway();
  const { put } = manage;

  it('updates basic fields, limits and rates by id, name, e-mail and with POST', async () => {
    const child = await createUser(manage.gw, { credit: 5 });
    const response = await put(child.id, {
      Alias: 'Shown Name',
      HardLimit: 3.5,
      RPM: 60,
      ModelLimits: { 'gpt-*': { rpm: 5 } },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as UpdateBody;
    expect(body.Action).toBe('update');
    expect(body.User).toMatchObject({
      ID: child.id,
      Alias: 'Shown Name',
      HardLimit: 3.5,
      RPM: 60,
      ModelLimits: { 'gpt-*': { rpm: 5 } },
    });
    expect((await put(child.name, { QRCode: 'qr-1' })).status).toBe(200);
    expect((await put(`${child.name}@example.com`, { BillingEmail: 'bills@example.com' })).status).toBe(200);
    const viaPost = await manage.gw.request(`/x-users/${child.id}`, { method: 'POST', json: { Rates: 1.5 } });
    expect(viaPost.status).toBe(200);
    expect(((await viaPost.json()) as UpdateBody).User).toMatchObject({
      QRCode: 'qr-1',
      BillingEmail: 'bills@example.com',
      Rates: 1.5,
    });
    // Rename: the new name answers, the old one is free.
    const renamed = uniqueName('renamed');
    expect((await put(child.id, { Name: renamed })).status).toBe(200);
    expect((await manage.gw.request(`/x-users/${renamed}`)).status).toBe(200);
    await expectError(await manage.gw.request(`/x-users/${child.name}`), 404, 'not_found');
  });

  it('shows ModelLimits as stored, 0 and empty members included', async () => {
    const limits = { 'gpt-4o*': { rpm: 10, tpd: 0 }, '*': {} };
    const child = await createUser(manage.gw, { extra: { ModelLimits: limits } });
    const shown = (await (await manage.gw.request(`/x-users/${child.id}`)).json()) as {
      users: Array<{ ModelLimits: unknown }>;
    };
    expect(shown.users[0]?.ModelLimits).toEqual(limits);
  });

  it('applies AllowModels operations: add, -remove, * reset', async () => {
    const child = await createUser(manage.gw);
    const models = async (ops: string) =>
      ((await (await put(child.id, { AllowModels: ops })).json()) as UpdateBody).User.AllowModels;
    expect(await models('gpt-4o claude-*')).toBe('gpt-4o claude-*');
    expect(await models('o3')).toBe('gpt-4o claude-* o3');
    expect(await models('-gpt-4o')).toBe('claude-* o3');
    expect(await models('*')).toBe('');
    expect(await models('* gemini-*')).toBe('gemini-*');
  });

  it('refuses owner-only fields to non-owners, own Status/Suspended, low Rates and bad input', async () => {
    const parent = await createUser(manage.gw, { credit: 10, extra: { Rates: 2 } });
    const child = await createUser(manage.gw, { parentKey: parent.key, credit: 2 });
    const before = await moneyState(manage.database);
    for (const field of [{ Level: 1 }, { Role: 1 }, { Factor: 2 }, { LevelMapper: 'x' }]) {
      await expectError(await put(child.id, field, parent.key), 403, 'forbidden');
    }
    await expectError(await put(child.id, { Status: false }, child.key), 403, 'forbidden');
    await expectError(await put(child.id, { Suspended: true }, child.key), 403, 'forbidden');
    await expectError(await put(child.id, { HardLimit: 100 }, child.key), 403, 'forbidden');
    await expectError(await put(child.id, { Rates: 1.5 }, parent.key), 400, 'invalid_request');
    for (const bad of [
      { CreditGranted: 'lots' },
      { CreditGranted: 1.0000000001 },
      { HardLimit: -1 },
      { RPM: 1.5 },
      { Status: 'no' },
      { Name: 'x'.repeat(64) },
      { Name: 'ab' },
      { Name: "x'; DROP TABLE accounts.accounts; --", Days: 0 },
      { Email: 'not-an-email' },
      { Balance: 100 },
      { DNA: '.1.' },
      { Days: 0 },
      { Level: 10 },
    ]) {
      await expectError(await put(child.id, bad, parent.key), 400, 'invalid_request');
    }
    await expectError(await put(child.id, { Name: parent.name }, parent.key), 409, 'conflict');
    await expectError(
      await manage.gw.request(`/x-users/${child.id}`, {
        method: 'PUT',
        key: parent.key,
        body: '{"Alias": ',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
    );
    expect(await moneyState(manage.database)).toBe(before);
    // The account may change its own basic fields.
    expect((await put(child.id, { Alias: 'me myself' }, child.key)).status).toBe(200);
    // The owner (root) may set owner-only fields; the parent may disable the child, whose changes
    // then get 403 while its reads still answer.
    expect((await put(child.id, { Level: 4, Factor: 1.25 })).status).toBe(200);
    expect((await put(child.id, { Status: false }, parent.key)).status).toBe(200);
    await waitFor(
      async () => (await put(child.id, { Alias: 'disabled me' }, child.key)).status === 403,
      'disabled child refused',
    );
    expect((await manage.gw.request('/dashboard/status', { key: child.key })).status).toBe(200);
    expect((await put(child.id, { Status: true }, parent.key)).status).toBe(200);
    // A SQL-looking name that passes the name rules is stored literally.
    const sqlName = "x'; DROP TABLE accounts.accounts; --";
    const stored = await put(child.id, { Name: sqlName }, parent.key);
    expect(stored.status).toBe(200);
    expect(((await stored.json()) as UpdateBody).User.Name).toBe(sqlName);
    expect((await manage.database.query('SELECT count(*) AS n FROM accounts.accounts')).length).toBe(1);
  });
});
