import { AppError, ErrorCode, keyModelField } from '@gw/kit';
import type { PoolState } from '../ports/key-health-store.js';
import { FailureClass } from '../key-health.js';
import { recordFailure } from '../record-failure.js';
import type { AdmittedCall, ServedBy } from './call.js';
import type { UpstreamCall } from '../ports/upstream-call.js';
import type { CallDeps } from '../ports/deps.js';
import { callMeter } from './call-meter.js';
import { releaseSpend } from './reserve-spend.js';

/**
 * Steps 3 to 6 of every AI call: each key of each route step in turn until one serves (failover);
 * a failure counts against the key that failed (its sleep ladder, its Level's switch-over); the
 * key that serves is marked healthy and its answer relayed and metered, one usage event per
 * exchange. When no key serves, the call is taken back from its windows and the refusal says why:
 * no key of a kind that serves the endpoint (404 with the reason), all rate limited (429), the
 * model known to none (404), or nothing answered (503).
 */
export async function runCall<Answer>(
  deps: CallDeps,
  call: AdmittedCall,
  upstream: UpstreamCall<Answer>,
): Promise<void> {
  try {
    await tryKeys(deps, call, upstream);
  } finally {
    releaseSpend(deps, call, call.reservation);
  }
}

async function tryKeys<Answer>(
  deps: CallDeps,
  call: AdmittedCall,
  upstream: UpstreamCall<Answer>,
): Promise<void> {
  const failedHere = new Set<string>();
  const failures: FailureClass[] = [];
  let skipReason: string | undefined;
  for (const step of call.plan.steps) {
    for (const key of step.keys) {
      if (upstream.clientGone()) {
        return;
      }
      if (failedHere.has(key.id)) {
        continue;
      }
      const served: ServedBy = { key, step };
      call.details.keyId = key.id;
      call.details.keyLevel = step.level;
      const attempt = await upstream.attempt(served);
      switch (attempt.kind) {
        case 'skipped':
          skipReason ??= attempt.reason;
          continue;
        case 'answered':
        case 'client_left':
          return;
        case 'failed':
          call.log.warn(
            {
              keyId: key.id,
              level: step.level,
              failure: attempt.failure,
              status: attempt.status,
              err: attempt.error,
            },
            'upstream attempt failed',
          );
          failedHere.add(key.id);
          failures.push(attempt.failure);
          await recordFailure(
            {
              health: deps.health,
              levels: deps.levels,
              alerts: deps.alerts,
              levelCooldownMs: deps.config.PROXY_LEVEL_COOLDOWN_MS,
              log: call.log,
            },
            {
              pool: call.pool,
              state: call.state,
              key,
              level: step.level,
              model: step.model,
              failure: attempt.failure,
              retryAfterMs: attempt.retryAfterMs,
              requestFailures: failures,
            },
          );
          continue;
        case 'served':
          if (hasStateToReset(call.state, key.id, step.model)) {
            void deps.health.recordSuccess(call.caller.ownerId, key.id, step.model);
          }
          await upstream.serve(attempt.answer, served, callMeter(deps, call, served));
          return;
      }
    }
  }
  // No upstream served it: the call is not counted in its windows (one rule for every transport).
  void deps.limiter.refund(call.windows, call.admittedAt);
  throw exhausted(call, failures, skipReason);
}

/**
 * A success resets the key's failure counters and wakes it (a probe found it healthy); a key with
 * neither, as most calls find it, has nothing to write.
 */
function hasStateToReset(state: PoolState, keyId: string, model: string): boolean {
  const pair = keyModelField(keyId, model);
  return (
    state.failing.has(keyId) ||
    state.failing.has(pair) ||
    state.sleeping.has(keyId) ||
    state.sleeping.has(pair)
  );
}

function exhausted(call: AdmittedCall, failures: readonly FailureClass[], skipReason?: string): AppError {
  if (failures.length === 0 && skipReason !== undefined) {
    // No key of the route can serve this endpoint at all (the Messages API on OpenAI-style keys).
    return new AppError(
      ErrorCode.NotFound,
      `model ${call.plan.modelMapped} cannot be served here: ${skipReason}`,
    );
  }
  if (failures.length > 0 && failures.every((failure) => failure === FailureClass.RateLimit)) {
    return new AppError(ErrorCode.RateLimited, 'every upstream key is rate limited; try again later');
  }
  if (failures.length > 0 && failures.every((failure) => failure === FailureClass.Model)) {
    return new AppError(
      ErrorCode.NotFound,
      `model ${call.plan.modelMapped} is not available from any upstream key`,
    );
  }
  return new AppError(ErrorCode.Unavailable, 'no upstream could serve this request');
}
