import { createUser, expectError, uniqueName } from '@gw/testkit';
import { describe, expect, it } from 'vitest';
import { moneyState } from './accounts-helpers.js';
import { useManageGateway } from './manage-fixture.js';

describe('POST /x-users and PUT /x-users/{identifier}: refused input changes nothing', () => {
  const manage = useManageGateway();
  const { put } = manage;

  it('refuses a second account with the same name or e-mail: 409 conflict', async () => {
    await createUser(manage.gw, { name: 'uniquely1' });
    const before = await moneyState(manage.database);
    await expectError(
      await manage.gw.request('/x-users', {
        method: 'POST',
        json: { Name: 'UNIQUELY1', Email: 'other@example.com', CreditGranted: 2 },
      }),
      409,
      'conflict',
      'Name is already taken',
    );
    await expectError(
      await manage.gw.request('/x-users', {
        method: 'POST',
        json: { Name: 'uniquely2', Email: 'Uniquely1@Example.com', CreditGranted: 2 },
      }),
      409,
      'conflict',
      'Email is already registered',
    );
    expect(await moneyState(manage.database)).toBe(before);
  });

  it('refuses a ModelLimits limit the contract has no field for, and changes nothing', async () => {
    const child = await createUser(manage.gw, { extra: { ModelLimits: { a: { rpm: 1 } } } });
    await expectError(
      await put(child.id, { ModelLimits: { a: { rps: 5 } } }),
      400,
      'invalid_request',
      'ModelLimits.a',
    );
    const shown = (await (await manage.gw.request(`/x-users/${child.id}`)).json()) as {
      users: Array<{ ModelLimits: unknown }>;
    };
    expect(shown.users[0]?.ModelLimits).toEqual({ a: { rpm: 1 } });
  });

  it('answers 400 naming the field and its range for out-of-range amounts and limits, 415 without JSON, never 500', async () => {
    const parent = await createUser(manage.gw, { credit: 10 });
    const child = await createUser(manage.gw, { parentKey: parent.key, credit: 2 });
    const before = await moneyState(manage.database);
    const create = (json: unknown) => manage.gw.request('/x-users', { method: 'POST', json });
    const fresh = () => {
      const name = uniqueName('bounded');
      return { Name: name, Email: `${name}@example.com` };
    };
    await expectError(
      await create({ ...fresh(), CreditGranted: 9.3e9 }),
      400,
      'invalid_request',
      'CreditGranted: must be from 2 to 1000000000 USD',
    );
    await expectError(
      await create({ ...fresh(), CreditGranted: 1e30 }),
      400,
      'invalid_request',
      'CreditGranted',
    );
    await expectError(
      await create({ ...fresh(), CreditGranted: -5 }),
      400,
      'invalid_request',
      'must not be negative',
    );
    await expectError(
      await create({ ...fresh(), CreditGranted: 5, HardLimit: 1e30 }),
      400,
      'invalid_request',
      'HardLimit: must be from 0 to 1000000000 USD',
    );
    await expectError(
      await put(child.id, { CreditGranted: 1e30 }),
      400,
      'invalid_request',
      'CreditGranted: must be from -1000000000 to 1000000000 USD',
    );
    await expectError(
      await put(child.id, { Level: 1e30 }),
      400,
      'invalid_request',
      'Level: must be an integer from 0 to 9',
    );
    await expectError(
      await put(child.id, { RPM: 1e30 }),
      400,
      'invalid_request',
      'RPM: must be an integer from 0 to',
    );
    await expectError(
      await put(child.id, { SoftLimit: -1 }, parent.key),
      400,
      'invalid_request',
      'SoftLimit: must not be negative',
    );
    await expectError(
      await put(child.id, { ModelLimits: { m: { rpm: 1e30 } } }),
      400,
      'invalid_request',
      'ModelLimits.m.rpm',
    );
    await expectError(
      await put(child.id, { ModelLimits: { m: { rps: 1 } } }),
      400,
      'invalid_request',
      'ModelLimits.m',
    );
    // A body that is not declared JSON is 415, not "Name: received undefined".
    const plain = await manage.gw.request('/x-users', {
      method: 'POST',
      body: JSON.stringify({ ...fresh(), CreditGranted: 2 }),
      headers: { 'content-type': 'text/plain' },
    });
    await expectError(plain, 415, 'unsupported_media_type', 'Content-Type: application/json');
    // 10 000 levels deep, with and without an Idempotency-Key: 400 before anything walks it.
    const deep = `{"Alias":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Array<Record<string, string>>) {
      const response = await manage.gw.request(`/x-users/${child.id}`, {
        method: 'PUT',
        body: deep,
        headers: { 'content-type': 'application/json', ...headers },
      });
      await expectError(response, 400, 'invalid_request', 'deeper than 32 levels');
    }
    // A huge unknown key comes back as a short excerpt.
    const unknown = await put(child.id, { [`X${'k'.repeat(100_000)}`]: 1 });
    const body = await expectError(unknown, 400, 'invalid_request');
    expect(body.error.message.length).toBeLessThan(300);
    expect(await moneyState(manage.database)).toBe(before);
  });
});
