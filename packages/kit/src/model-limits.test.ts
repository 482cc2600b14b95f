import { describe, expect, it } from 'vitest';
import { accountModelLimits, fromModelLimitsMessage, toModelLimitsMessage } from './model-limits.js';

describe('ModelLimits between its JSON form and the contract', () => {
  it('keeps the members in order and each limit that is set, 0 included', () => {
    const limits = {
      'gpt-4o*': { tpd: 100, rpm: 0 },
      '*': {},
      'o1-mini': { rph: 5, tph: 7, rpd: 1, tpm: 2 },
    };
    const message = toModelLimitsMessage(limits);
    expect(message.entries.map((entry) => entry.pattern)).toEqual(['gpt-4o*', '*', 'o1-mini']);
    expect(message.entries[0]?.limits).toEqual({ rpm: 0n, tpd: 100n });
    expect(fromModelLimitsMessage(message)).toEqual(limits);
    expect(Object.keys(fromModelLimitsMessage(message))).toEqual(['gpt-4o*', '*', 'o1-mini']);
  });

  it('leaves out what the contract cannot carry', () => {
    const message = toModelLimitsMessage({ a: { rpm: 1.5, tpm: '5', rps: 3, rph: 2 }, b: 7, c: null });
    expect(fromModelLimitsMessage(message)).toEqual({ a: { rph: 2 }, b: {}, c: {} });
  });

  it('reads an entry without limits as an empty member', () => {
    expect(fromModelLimitsMessage({ entries: [{ pattern: 'a' }] })).toEqual({ a: {} });
  });

  it("reads an account's typed limits, and the JSON of an accounts service that predates them", () => {
    const typed = toModelLimitsMessage({ 'gpt-*': { rpm: 3 } });
    expect(accountModelLimits({ modelLimits: typed, modelLimitsJson: '{"stale":{"rpm":1}}' })).toEqual({
      'gpt-*': { rpm: 3 },
    });
    expect(accountModelLimits({ modelLimitsJson: '{"old-*":{"tpd":9}}' })).toEqual({ 'old-*': { tpd: 9 } });
    expect(accountModelLimits({ modelLimitsJson: '' })).toEqual({});
  });
});
