import { fromModelLimitsMessage } from '@gw/kit';
import { accounts } from '@gw/proto';
import { createAccountByRpc, rootAccountId, startService, type StartedService } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** An account's ModelLimits as each field of the answer carries it. */
function limitsOf(account: accounts.Account | undefined) {
  expect(account?.modelLimits).toBeDefined();
  const typed = fromModelLimitsMessage(account?.modelLimits ?? { entries: [] });
  // The deprecated JSON is filled too, for readers that predate model_limits, and agrees.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  expect(JSON.parse(account?.modelLimitsJson ?? '')).toEqual(typed);
  return typed;
}

describe('Account.model_limits and AccountFields.model_limits (typed, beside the deprecated JSON)', () => {
  let service: StartedService<'accounts'>;
  let rootId: bigint;

  const update = (identifier: number, fields: accounts.AccountFields) =>
    service.client.updateAccount({
      callerId: rootId,
      identifier: String(identifier),
      fields,
      idempotencyKey: '',
      ipAddress: '127.0.0.1',
      requestHash: '',
    });
  const get = async (identifier: number) =>
    (
      await service.client.getAccount({
        callerId: rootId,
        identifier: String(identifier),
        reach: accounts.Reach.REACH_SELF_OR_DESCENDANTS,
      })
    ).account;

  beforeAll(async () => {
    service = await startService('accounts');
    rootId = await rootAccountId(service);
  });

  afterAll(async () => {
    await (service as StartedService<'accounts'> | undefined)?.stop();
  });

  it('stores typed limits and answers them typed on update and get, 0 and empty members included', async () => {
    const child = await createAccountByRpc(service);
    const expected = { 'gpt-4o*': { rpm: 10, tpd: 0 }, '*': {} };
    const updated = await update(child.id, {
      modelLimits: {
        entries: [
          { pattern: 'gpt-4o*', limits: { rpm: 10n, tpd: 0n } },
          { pattern: '*', limits: {} },
        ],
      },
    });
    expect(limitsOf(updated.account)).toEqual(expected);
    expect(limitsOf(await get(child.id))).toEqual(expected);
  });

  it('keeps the limits when the field is unset and clears them with an empty ModelLimits', async () => {
    const child = await createAccountByRpc(service, {
      fields: { modelLimits: { entries: [{ pattern: 'o1*', limits: { tpm: 5n } }] } },
    });
    expect(limitsOf(await get(child.id))).toEqual({ 'o1*': { tpm: 5 } });
    expect(limitsOf((await update(child.id, { alias: 'kept' })).account)).toEqual({ 'o1*': { tpm: 5 } });
    expect(limitsOf((await update(child.id, { modelLimits: { entries: [] } })).account)).toEqual({});
  });

  it('understands an edge that predates model_limits: the JSON alone', async () => {
    const child = await createAccountByRpc(service);
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const updated = await update(child.id, { modelLimitsJson: '{"claude-*":{"rph":7,"tph":9}}' });
    expect(limitsOf(updated.account)).toEqual({ 'claude-*': { rph: 7, tph: 9 } });
  });
});
