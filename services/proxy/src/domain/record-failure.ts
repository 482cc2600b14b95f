import { keyModelField, type Logger } from '@gw/kit';
import { FailureClass, isProbeable, shouldSwitchLevel } from './key-health.js';
import type { KeyHealthStore, PoolState } from './ports/key-health-store.js';
import type { LevelEvents } from './ports/level-events.js';
import type { OwnerAlerts } from './ports/owner-alerts.js';
import type { OwnerPool, PoolKey } from './pool.js';
import { switchOverChain } from './route-plan.js';

export interface RecordFailureDeps {
  health: KeyHealthStore;
  levels: LevelEvents;
  alerts: OwnerAlerts;
  /** How long a switched Level sends its traffic to its backup. */
  levelCooldownMs: number;
  log: Logger;
  now?: () => number;
}

/**
 * A failed attempt counts against the key (sleep ladder) and its Level: more than 5 failures in a
 * minute switch a Level with a SWITCH_OVER backup to it for the cool-down (announced once). A
 * credentials failure (401/403) also alerts the owner by mail. A refusal of the model counts
 * against that key and model only (the key keeps serving other models, its Level is fine), and
 * one request counts against one pair at most: the keys it fails over to are not blamed too, so
 * one request never puts a model to sleep across a Level.
 */
export async function recordFailure(
  deps: RecordFailureDeps,
  attempt: {
    pool: OwnerPool;
    state: PoolState;
    key: PoolKey;
    level: number;
    model: string;
    failure: FailureClass;
    retryAfterMs?: number;
    /** Every failure of this request so far, this one included. */
    requestFailures: readonly FailureClass[];
  },
): Promise<void> {
  const { pool, state, key, level, failure } = attempt;
  const ownerId = pool.ownerId;
  if (failure === FailureClass.Model) {
    if (attempt.requestFailures.filter((earlier) => earlier === FailureClass.Model).length === 1) {
      await deps.health.recordModelFailure(ownerId, key.id, attempt.model);
    }
    return;
  }
  const levelFailures = await deps.health.recordFailure(
    ownerId,
    key.id,
    level,
    failure,
    attempt.retryAfterMs,
  );
  if (failure === FailureClass.Auth) {
    // The key sleeps the longest step; a person has to fix its credentials.
    await deps.alerts.keyAuthFailed(ownerId, key.id);
  }
  if (!shouldSwitchLevel(levelFailures, switchOverChain(pool, level).length > 0, state.switched.has(level))) {
    return;
  }
  const until = (deps.now ?? Date.now)() + deps.levelCooldownMs;
  state.switched.add(level);
  if (await deps.health.switchLevel(ownerId, level, until)) {
    deps.log.warn({ ownerId, level, until: new Date(until).toISOString() }, 'Level switched to its backup');
    deps.levels.levelSwitched(ownerId, level, until);
  }
}

/** Cool-downs that ended: the first replica to notice clears the mark and announces it. */
export function switchBackCooledLevels(
  deps: Pick<RecordFailureDeps, 'health' | 'levels' | 'log'>,
  ownerId: string,
  state: PoolState,
): void {
  for (const level of state.cooledDown) {
    void deps.health.switchBack(ownerId, level).then((won) => {
      if (won) {
        deps.log.info({ ownerId, level }, 'Level switched back after its cool-down');
        deps.levels.levelSwitched(ownerId, level, undefined);
      }
    });
  }
}

/**
 * When every key a plan could use is asleep: the first Level (in the plan's order) with a key
 * asleep for the upstream's health (connection, timeout, 5xx) lends one of them to this request,
 * at most once per Level per `intervalMs` (30 s) across replicas, so a recovered upstream is back
 * without waiting out the whole sleep. Keys asleep for credentials or a model stay asleep.
 * Answers the key to treat as awake.
 */
export async function claimProbe(
  deps: Pick<RecordFailureDeps, 'health'>,
  pool: OwnerPool,
  state: PoolState,
  levels: readonly number[],
  intervalMs: number,
): Promise<PoolKey | undefined> {
  for (const level of levels) {
    const probeable = pool.keys.find(
      (key) =>
        key.level === level && key.active && isProbeable(state.sleepDetails.get(key.id)?.failure ?? ''),
    );
    if (probeable && (await deps.health.claimProbe(pool.ownerId, level, intervalMs))) {
      return probeable;
    }
  }
  return undefined;
}

/** When the first of the given keys wakes (for the plan's model), or undefined when none sleeps. */
export function earliestWake(state: PoolState, keys: readonly PoolKey[], model: string): number | undefined {
  const wakes = keys.flatMap((key) =>
    [state.sleepDetails.get(key.id), state.sleepDetails.get(keyModelField(key.id, model))].flatMap((sleep) =>
      sleep ? [sleep.until] : [],
    ),
  );
  return wakes.length > 0 ? Math.min(...wakes) : undefined;
}
