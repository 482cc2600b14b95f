import { accounts } from '@gw/proto';
import { describe, expect, it } from 'vitest';
import { canManage, managementView, userInfoView } from './account-views.js';

const NO_USAGE = { today: { requests: 0, tokens: 0 }, month: { requests: 0, tokens: 0 } };

/** An Account as it arrives over the wire. */
const received = (account: Partial<accounts.Account>) =>
  accounts.Account.decode(accounts.Account.encode(accounts.Account.fromPartial(account)).finish());

describe('ModelLimits of an account view', () => {
  it('reads the typed model_limits', () => {
    const account = received({
      modelLimits: {
        entries: [
          { pattern: 'gpt-4o*', limits: { rpm: 5n, tpm: 9n, tpd: 0n } },
          { pattern: 'o1', limits: { rph: 2n } },
        ],
      },
      // A stale JSON beside it is ignored.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      modelLimitsJson: '{"stale":{"rpm":1}}',
    });
    expect(managementView(account).ModelLimits).toEqual({
      'gpt-4o*': { rpm: 5, tpm: 9, tpd: 0 },
      o1: { rph: 2 },
    });
    expect(userInfoView(account, NO_USAGE).model_limits).toEqual({
      'gpt-4o*': { rpm: 5, tpm: 9 },
      o1: { rpm: 0, tpm: 0 },
    });
  });

  it('reads the JSON of an accounts service that predates model_limits', () => {
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const account = received({ modelLimitsJson: '{"gpt-*":{"rpm":5,"tph":3}}' });
    expect(account.modelLimits).toBeUndefined();
    expect(managementView(account).ModelLimits).toEqual({ 'gpt-*': { rpm: 5, tph: 3 } });
    expect(userInfoView(account, NO_USAGE).model_limits).toEqual({ 'gpt-*': { rpm: 5, tpm: 0 } });
    expect(managementView(received({})).ModelLimits).toEqual({});
  });
});

describe('the usage block of user_info', () => {
  it("counts billing's calls and costs them at the account's spend, the figure limits hold against", () => {
    const account = received({ daySpendNano: 1_500_000_000n, monthSpendNano: 4_250_000_000n });
    const counts = { today: { requests: 3, tokens: 120 }, month: { requests: 7, tokens: 400 } };
    expect(userInfoView(account, counts).usage).toEqual({
      today: { requests: 3, tokens: 120, cost: 1.5 },
      month: { requests: 7, tokens: 400, cost: 4.25 },
    });
  });
});

describe('canManage', () => {
  it('is true for root and owners whatever their balance, and for others only with credit left', () => {
    expect(canManage(received({ status: true, isRoot: true, balanceNano: 0n }))).toBe(true);
    expect(canManage(received({ status: true, isOwner: true, balanceNano: -5n }))).toBe(true);
    expect(canManage(received({ status: true, balanceNano: 0n }))).toBe(false);
    expect(canManage(received({ status: true, balanceNano: 1n }))).toBe(true);
    expect(canManage(received({ status: false, isOwner: true, balanceNano: 1n }))).toBe(false);
    expect(canManage(received({ status: true, suspended: true, isRoot: true }))).toBe(false);
  });
});

describe('the management view', () => {
  it('shows the account LevelMapper its owner set', () => {
    expect(managementView(received({ levelMapper: 'gpt-4o=3' })).LevelMapper).toBe('gpt-4o=3');
  });
});
