import type { Logger } from '@gw/kit';
import { FailureClass, shouldSwitchLevel } from './key-health.js';
import type { KeyHealthStore, LevelEvents, OwnerAlerts, PoolState } from './ports.js';
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
 * credentials failure (401/403) also alerts the owner by mail.
 */
export async function recordFailure(
  deps: RecordFailureDeps,
  attempt: {
    pool: OwnerPool;
    state: PoolState;
    key: PoolKey;
    level: number;
    failure: FailureClass;
    retryAfterMs?: number;
  },
): Promise<void> {
  const { pool, state, key, level, failure } = attempt;
  const ownerId = pool.ownerId;
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
