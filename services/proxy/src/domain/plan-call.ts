import { AppError, ErrorCode, type CallerIdentity } from '@gw/kit';
import { claimProbe, earliestWake, type RecordFailureDeps } from './record-failure.js';
import type { PoolState } from './ports/key-health-store.js';
import type { OwnerPool } from './pool.js';
import { planRoute, refusalError, type RoundRobin, type RoutePlan } from './route-plan.js';

/**
 * The route of one call, or the refusal to answer. A request that names no model (a model
 * listing) is not held to AllowModels. When every key the call could use is asleep, one key
 * asleep for the upstream's health may be probed; otherwise the answer is 503 with Retry-After
 * at the earliest wake time of those keys.
 */
export async function planCall(
  deps: Pick<RecordFailureDeps, 'health'> & { roundRobin: RoundRobin; probeIntervalMs: number },
  pool: OwnerPool,
  caller: CallerIdentity,
  model: string,
  state: PoolState,
  now: () => number = Date.now,
): Promise<RoutePlan> {
  const subject =
    model === ''
      ? { ...caller, allowModels: '', inherited: { ...caller.inherited, allowModels: [] } }
      : caller;
  let planned = planRoute(pool, subject, model, state.sleeping, deps.roundRobin, state.switched);
  if (!planned.ok && planned.reason === 'no_key_available') {
    const probe = await claimProbe(deps, pool, state, planned.plan.candidateLevels, deps.probeIntervalMs);
    if (probe) {
      const awake = new Set(state.sleeping);
      awake.delete(probe.id);
      planned = planRoute(pool, subject, model, awake, deps.roundRobin, state.switched);
    }
  }
  if (planned.ok) {
    return planned.plan;
  }
  const refusal = refusalError(planned.reason, planned.message);
  if (planned.reason === 'no_key_available') {
    const candidates = pool.keys.filter(
      (key) => key.active && planned.plan.candidateLevels.includes(key.level),
    );
    const wake = earliestWake(state, candidates, planned.plan.modelMapped);
    if (wake !== undefined) {
      throw new AppError(ErrorCode.Unavailable, planned.message, {
        retryAfterSeconds: Math.max(1, Math.ceil((wake - now()) / 1000)),
      });
    }
  }
  throw refusal;
}
