import { assertAdmitted, callWindows } from '../call-limits.js';
import { rateLimitWindows } from '../limits.js';
import { planCall } from '../plan-call.js';
import { switchBackCooledLevels } from '../record-failure.js';
import type { ParsedRequest } from '../request.js';
import { assertObjectsOwned } from '../stored-objects.js';
import { releaseSpend, spendOutcome, spendReservation } from './reserve-spend.js';
import type { AdmittedCall, OpenedCall } from './call.js';
import type { CallDeps } from '../ports/deps.js';

/**
 * Step 2, once the request is read: the stored objects it builds on are the caller's own; then one
 * command to the shared store (one Redis script, `AdmissionStore`) does three things: every
 * rate-limit window of the call checked and counted, the pool's key state read, and the call's
 * estimated cost held against the balance (root holds none). Each part fails open on its own terms
 * when Redis is out. Levels whose cool-down ended are switched back; then the route from memory (AllowModels,
 * AllowLevels, mapping, Levels, a probe of a sleeping key when all sleep, Retry-After otherwise).
 * The refusals keep their order (rate limits, route, spend), and a call refused here costs nothing:
 * its count is taken back and its estimate released.
 */
export async function admitCall(
  deps: CallDeps,
  call: OpenedCall,
  request: ParsedRequest,
): Promise<AdmittedCall> {
  // A stored object another account made is not this caller's to build on (404 before anything).
  await assertObjectsOwned(deps.objects, call.caller.ownerId, call.caller.accountId, request);
  const admittedAt = Date.now();
  const windows = callWindows(call.caller, call.pool, deps.defaultModelLimits, request.model);
  const reservation = spendReservation(deps, call, request, admittedAt);
  const {
    limits: admission,
    state,
    reservation: reserved,
  } = await deps.admission.admit({ now: admittedAt, windows, ownerId: call.caller.ownerId, reservation });
  const spend = spendOutcome(call, reservation, reserved);
  const held = spend.ok ? spend.held : undefined;
  const refuse = (error: unknown): never => {
    void deps.limiter.refund(windows, admittedAt);
    releaseSpend(deps, call, held);
    throw error;
  };
  if (!admission.ok) {
    // Refused by a window: nothing was counted, only the estimate is given back.
    releaseSpend(deps, call, held);
  }
  assertAdmitted(admission, admittedAt);
  switchBackCooledLevels(deps, call.caller.ownerId, state);
  const plan = await planCall(
    {
      health: deps.health,
      roundRobin: deps.roundRobin,
      probeIntervalMs: deps.config.PROXY_PROBE_INTERVAL_MS,
    },
    call.pool,
    call.caller,
    request.model,
    state,
  ).catch((error: unknown) => refuse(error));
  if (!spend.ok) {
    refuse(spend.refusal);
  }
  // Named one by one, not spread: see CONTRIBUTING.md (objects on the per-call path).
  return {
    endpoint: call.endpoint,
    caller: call.caller,
    pool: call.pool,
    details: call.details,
    requestId: call.requestId,
    log: call.log,
    startedAt: call.startedAt,
    request,
    windows,
    admittedAt,
    state,
    plan,
    limitWindows: rateLimitWindows(admission.windows, admittedAt),
    reservation: held,
  };
}
