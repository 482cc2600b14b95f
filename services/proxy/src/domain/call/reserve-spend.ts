import { AppError, ErrorCode, newId, type PricedUsage } from '@gw/kit';
import type { RoutePlan } from '../route-plan.js';
import { imageSizeOf, type ParsedRequest } from '../request.js';
import { costOf, estimatedEvent, estimatedUsage } from '../spend.js';
import type { AdmittedCall, OpenedCall } from './call.js';
import type { CallDeps } from '../ports/deps.js';

/** An estimate a proxy that died never released lapses after this long. */
const IN_FLIGHT_LAPSE_MS = 15 * 60_000;

/**
 * The spend part of admission (docs/decisions.md §1): the call's estimated cost is held against
 * the account's balance while it runs, and the call is admitted only while the balance less
 * everything held (calls in flight, served calls billing has not surely charged yet) stays above
 * the floor; so the overdraft of an account is at most the cost of one call beyond its estimate.
 * Calls in flight per account are capped. Root (no spend given) holds nothing. Redis out: admitted
 * (the balance check at authentication still applies), as for rate limits.
 */
export async function reserveSpend(
  deps: CallDeps,
  call: OpenedCall,
  request: ParsedRequest,
  plan: RoutePlan,
  now: number,
): Promise<string | undefined> {
  const spend = call.caller.spend;
  if (!spend) {
    return undefined;
  }
  const reservation = newId('request');
  const estimateNano = costOf(
    call.pool,
    spend,
    estimatedEvent(
      {
        path: call.endpoint.path,
        modelRequested: request.model,
        modelServed: plan.modelMapped,
        imageSize: imageSizeOf(request),
      },
      estimatedUsage(request, { estimateOutputTokens: deps.config.PROXY_ESTIMATE_OUTPUT_TOKENS }),
    ),
  );
  const held = await deps.spend
    .reserve({
      accountId: call.caller.accountId,
      callId: reservation,
      estimateNano,
      balanceNano: BigInt(spend.balanceNano),
      floorNano: BigInt(spend.floorNano),
      maxInFlight: deps.config.PROXY_MAX_IN_FLIGHT_PER_ACCOUNT,
      inFlightUntil: now + IN_FLIGHT_LAPSE_MS,
      now,
    })
    .catch((error: unknown) => {
      call.log.warn({ err: error }, 'spend reservations unavailable: admitting on the cached balance alone');
      return { ok: true } as const;
    });
  if (held.ok) {
    return reservation;
  }
  throw held.reason === 'in_flight'
    ? new AppError(ErrorCode.RateLimited, 'too many calls of this account are in flight; try again shortly', {
        retryAfterSeconds: 1,
      })
    : new AppError(ErrorCode.QuotaExceeded, "the balance does not cover this call's estimated cost");
}

/** A served exchange's actual cost (its usage event, priced), held until billing has surely charged it. */
export function holdServedCost(
  deps: CallDeps,
  call: AdmittedCall,
  event: PricedUsage,
  exchange: number,
): void {
  const spend = call.caller.spend;
  if (!spend || !call.reservation) {
    return;
  }
  const now = Date.now();
  void deps.spend
    .hold({
      accountId: call.caller.accountId,
      holdId: `${call.reservation}:${exchange}`,
      costNano: costOf(call.pool, spend, event),
      until: now + deps.config.PROXY_SPEND_HOLD_MS,
      now,
    })
    .catch((error: unknown) => call.log.warn({ err: error }, 'spend hold failed'));
}

/** The call ended: its in-flight estimate is released (served exchanges keep their own holds). */
export function releaseSpend(deps: CallDeps, call: AdmittedCall): void {
  if (call.reservation) {
    void deps.spend
      .release(call.caller.accountId, call.reservation)
      .catch((error: unknown) => call.log.warn({ err: error }, 'spend release failed'));
  }
}
