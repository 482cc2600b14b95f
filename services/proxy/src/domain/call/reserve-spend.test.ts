import { AppError, ErrorCode } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import type { SpendReservation } from '../ports/spend-reservations.js';
import { recordingLogger } from '../../../test/log-helpers.js';
import { spendOutcome } from './reserve-spend.js';

/** A call whose log keeps the messages of its warnings. */
function loggingCall() {
  const { log, warnings } = recordingLogger();
  return { call: { log }, warnings };
}

const RESERVATION: SpendReservation = {
  accountId: '7',
  callId: 'req_1',
  estimateNano: 100n,
  balanceNano: 1_000n,
  floorNano: 0n,
  maxInFlight: 4,
  inFlightUntil: 1,
};

describe('spendOutcome', () => {
  it('holds nothing for a call that asked for no reservation (root)', () => {
    const { call } = loggingCall();
    expect(spendOutcome(call, undefined, undefined)).toEqual({ ok: true, held: undefined });
  });

  it('holds the estimate under the call id the store took', () => {
    const { call, warnings } = loggingCall();
    expect(spendOutcome(call, RESERVATION, { ok: true })).toEqual({
      ok: true,
      held: { id: 'req_1', open: true },
    });
    expect(warnings).toEqual([]);
  });

  it('admits, warns, and still counts the estimate as held (to release it) when the store did not answer', () => {
    const { call, warnings } = loggingCall();
    const outcome = spendOutcome(call, RESERVATION, { ok: 'unknown', error: new Error('down') });
    expect(outcome).toEqual({ ok: true, held: { id: 'req_1', open: true } });
    expect(warnings).toEqual(['spend reservations unavailable: admitting on the cached balance alone']);
  });

  it('refuses a balance held to the floor with quota_exceeded, too many calls in flight with rate_limited', () => {
    const { call } = loggingCall();
    const balance = spendOutcome(call, RESERVATION, { ok: false, reason: 'balance' });
    const inFlight = spendOutcome(call, RESERVATION, { ok: false, reason: 'in_flight' });
    expect(!balance.ok && balance.refusal).toBeInstanceOf(AppError);
    expect(!balance.ok && balance.refusal.code).toBe(ErrorCode.QuotaExceeded);
    expect(!inFlight.ok && inFlight.refusal.code).toBe(ErrorCode.RateLimited);
    expect(!inFlight.ok && inFlight.refusal.details).toEqual({ retryAfterSeconds: 1 });
  });
});
