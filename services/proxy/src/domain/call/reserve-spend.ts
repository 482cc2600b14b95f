import { AppError, ErrorCode, newId, type PricedUsage } from '@gw/kit';
import { mapModel } from '../route-plan.js';
import { imageSizeOf, type ParsedRequest } from '../request.js';
import { costOf, estimatedUsage } from '../spend.js';
import { pricedUsage } from '../usage.js';
import type { AdmittedCall, HeldEstimate, OpenedCall } from './call.js';
import type { CallDeps } from '../ports/deps.js';
import type { Reservation, SpendReservation } from '../ports/spend-reservations.js';

/** An estimate a proxy that died never released lapses after this long. */
const IN_FLIGHT_LAPSE_MS = 15 * 60_000;

/** What holding a call's estimate came to: the estimate held (none for root), or the refusal. */
export type SpendOutcome = { ok: true; held: HeldEstimate | undefined } | { ok: false; refusal: AppError };

/**
 * The spend part of admission (docs/decisions.md §1): the call's estimated cost is held against
 * the account's balance while it runs, and the call is admitted only while the balance less
 * everything held (calls in flight, served calls billing has not surely charged yet) stays above
 * the floor; so the overdraft of an account is at most the cost of one call beyond its estimate.
 * Calls in flight per account are capped. Root (no spend given) holds nothing: no reservation.
 * The estimate prices the model the call maps to, which needs no key state, so admission asks for
 * it in the same script as the rate-limit check and the key-state read (`AdmissionStore`).
 */
export function spendReservation(
  deps: CallDeps,
  call: OpenedCall,
  request: ParsedRequest,
  now: number,
): SpendReservation | undefined {
  const spend = call.caller.spend;
  if (!spend) {
    return undefined;
  }
  return {
    accountId: call.caller.accountId,
    callId: newId('request'),
    estimateNano: costOf(
      call.pool,
      spend,
      pricedUsage(
        {
          path: call.endpoint.path,
          modelRequested: request.model,
          modelServed: mapModel(request.model, call.caller.modelMapper, call.pool),
          imageSize: imageSizeOf(request),
        },
        estimatedUsage(request, { estimateOutputTokens: deps.config.PROXY_ESTIMATE_OUTPUT_TOKENS }),
      ),
    ),
    balanceNano: BigInt(spend.balanceNano),
    floorNano: BigInt(spend.floorNano),
    maxInFlight: deps.config.PROXY_MAX_IN_FLIGHT_PER_ACCOUNT,
    inFlightUntil: now + IN_FLIGHT_LAPSE_MS,
  };
}

/**
 * What the store answered to the reservation. Redis out: admitted (the balance check at
 * authentication still applies), as for rate limits, and the estimate counts as held, so the
 * call's end still tries to release it.
 */
export function spendOutcome(
  call: Pick<OpenedCall, 'log'>,
  reservation: SpendReservation | undefined,
  answer: Reservation | undefined,
): SpendOutcome {
  if (!reservation || !answer) {
    return { ok: true, held: undefined };
  }
  if (answer.ok === 'unknown') {
    call.log.warn(
      { err: answer.error },
      'spend reservations unavailable: admitting on the cached balance alone',
    );
  }
  if (answer.ok !== false) {
    return { ok: true, held: { id: reservation.callId, open: true } };
  }
  return {
    ok: false,
    refusal:
      answer.reason === 'in_flight'
        ? new AppError(
            ErrorCode.RateLimited,
            'too many calls of this account are in flight; try again shortly',
            { retryAfterSeconds: 1 },
          )
        : new AppError(ErrorCode.QuotaExceeded, "the balance does not cover this call's estimated cost"),
  };
}

/**
 * A served exchange's actual cost (its usage event, priced), held until billing has surely charged
 * it. An exchange that ends the call (a whole HTTP answer) releases the call's in-flight estimate
 * in the same step, so `releaseSpend` then has nothing left to do.
 */
export function holdServedCost(
  deps: CallDeps,
  call: AdmittedCall,
  event: PricedUsage,
  exchange: { index: number; endsCall: boolean },
): void {
  const spend = call.caller.spend;
  const reservation = call.reservation;
  if (!spend || !reservation) {
    return;
  }
  const releasing = exchange.endsCall && reservation.open;
  if (releasing) {
    reservation.open = false;
  }
  const now = Date.now();
  void deps.spend
    .hold({
      accountId: call.caller.accountId,
      holdId: `${reservation.id}:${exchange.index}`,
      costNano: costOf(call.pool, spend, event),
      until: now + deps.config.PROXY_SPEND_HOLD_MS,
      now,
      releasing: releasing ? reservation.id : undefined,
    })
    .catch((error: unknown) => call.log.warn({ err: error }, 'spend hold failed'));
}

/** The call ended: its in-flight estimate, if still held, is released (served exchanges keep theirs). */
export function releaseSpend(deps: CallDeps, call: OpenedCall, held: HeldEstimate | undefined): void {
  if (held?.open) {
    held.open = false;
    void deps.spend
      .release(call.caller.accountId, held.id)
      .catch((error: unknown) => call.log.warn({ err: error }, 'spend release failed'));
  }
}
