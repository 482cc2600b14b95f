import type { CallerIdentity } from '@gw/kit';
import { isLevelAllowed, isModelAllowed, mostSpecific, parsePairs } from './patterns.js';
import type { OwnerPool, PoolKey } from './pool.js';

/**
 * The routing decision for one request: which model goes to which Level, and the keys to try
 * there in order. Pure: sleeping keys and the round-robin cursor come in as arguments.
 */
export interface RouteStep {
  model: string;
  level: number;
  keys: PoolKey[];
}

export interface RoutePlan {
  modelRequested: string;
  modelMapped: string;
  steps: RouteStep[];
}

export type PlanResult =
  | { ok: true; plan: RoutePlan }
  | {
      ok: false;
      reason: 'model_not_allowed' | 'level_not_allowed' | 'model_not_routed' | 'no_key_available';
      message: string;
    };

/** Round robin per (owner, Level), per replica. */
export class RoundRobin {
  private readonly cursors = new Map<string, number>();

  next(scope: string): number {
    const value = this.cursors.get(scope) ?? 0;
    this.cursors.set(scope, (value + 1) % Number.MAX_SAFE_INTEGER);
    return value;
  }
}

/** Account ModelMapper first, then the owner's MODEL_MAPPER; each applied once. */
export function mapModel(model: string, accountMapper: string, ownerMapper: string): string {
  const afterAccount = mostSpecific(parsePairs(accountMapper), model) ?? model;
  return mostSpecific(parsePairs(ownerMapper), afterAccount) ?? afterAccount;
}

/**
 * LEVEL_MAPPER, most specific pattern wins. With no LEVEL_MAPPER at all, the lowest Level of
 * the pool serves every model; with one, a model it does not name is not routed (requests that
 * name no model go to the lowest Level).
 */
export function levelOf(pool: OwnerPool, model: string): number | undefined {
  const pairs = parsePairs(pool.config.LEVEL_MAPPER ?? '')
    .map(([pattern, level]) => [pattern, Number(level)] as const)
    .filter(([, level]) => Number.isInteger(level));
  const mapped = pairs.length > 0 ? mostSpecific(pairs, model) : undefined;
  if (mapped !== undefined || (pairs.length > 0 && model !== '')) {
    return mapped;
  }
  // No LEVEL_MAPPER, or a request that names no model (GET /v1/models): the lowest Level.
  const levels = pool.keys.filter((key) => key.active).map((key) => key.level);
  return levels.length > 0 ? Math.min(...levels) : undefined;
}

/** MODEL_FAILOVER `primary=b1|b2` (pairs comma-separated): backups for a model, in order. */
export function failoverModels(pool: OwnerPool, model: string): string[] {
  const backups = mostSpecific(parsePairs(pool.config.MODEL_FAILOVER ?? ''), model);
  return backups
    ? backups
        .split('|')
        .map((name) => name.trim())
        .filter(Boolean)
    : [];
}

/** SWITCH_OVER chain after `level` (1→2→3); a cycle stops at the first repeat. */
export function switchOverChain(pool: OwnerPool, level: number): number[] {
  const next = new Map<number, number>();
  for (const [from, to] of parsePairs(pool.config.SWITCH_OVER ?? '')) {
    if (Number.isInteger(Number(from)) && Number.isInteger(Number(to)) && !next.has(Number(from))) {
      next.set(Number(from), Number(to));
    }
  }
  const chain: number[] = [];
  const seen = new Set([level]);
  for (
    let current = next.get(level);
    current !== undefined && !seen.has(current);
    current = next.get(current)
  ) {
    seen.add(current);
    chain.push(current);
  }
  return chain;
}

/** Active, awake keys of a Level, rotated to start at the cursor. */
export function keysInTurn(
  pool: OwnerPool,
  level: number,
  sleeping: ReadonlySet<string>,
  cursor: number,
): PoolKey[] {
  const usable = pool.keys.filter((key) => key.level === level && key.active && !sleeping.has(key.id));
  if (usable.length === 0) {
    return [];
  }
  const start = cursor % usable.length;
  return [...usable.slice(start), ...usable.slice(0, start)];
}

/**
 * 1 allowlist · 2 map the model · 3 Level · 4 order: the primary Level's keys, then the backup
 * models of MODEL_FAILOVER, then the SWITCH_OVER chain of Levels; switched Levels go last.
 */
export function planRoute(
  pool: OwnerPool,
  caller: CallerIdentity,
  model: string,
  sleeping: ReadonlySet<string>,
  roundRobin: RoundRobin,
  switched: ReadonlySet<number> = new Set(),
): PlanResult {
  if (!isModelAllowed(caller.allowModels, model)) {
    return { ok: false, reason: 'model_not_allowed', message: `model ${model} is not allowed for this key` };
  }
  const mapped = mapModel(model, caller.modelMapper, pool.config.MODEL_MAPPER ?? '');
  const primaryLevel = levelOf(pool, mapped);
  if (primaryLevel === undefined) {
    return { ok: false, reason: 'model_not_routed', message: `model ${mapped} is not routed to any Level` };
  }
  if (!isLevelAllowed(caller.allowLevels, primaryLevel)) {
    return {
      ok: false,
      reason: 'level_not_allowed',
      message: `Level ${primaryLevel} is not allowed for this key`,
    };
  }

  const candidates: Array<{ model: string; level: number }> = [{ model: mapped, level: primaryLevel }];
  for (const backup of failoverModels(pool, mapped)) {
    const level = levelOf(pool, backup);
    if (level !== undefined) {
      candidates.push({ model: backup, level });
    }
  }
  for (const level of switchOverChain(pool, primaryLevel)) {
    candidates.push({ model: mapped, level });
  }

  // A switched Level (too many failures, cool-down running) is tried only after everything else.
  const ordered = [
    ...candidates.filter((c) => !switched.has(c.level)),
    ...candidates.filter((c) => switched.has(c.level)),
  ];
  const seen = new Set<string>();
  const steps: RouteStep[] = [];
  for (const candidate of ordered) {
    const id = `${candidate.model}\u0000${candidate.level}`;
    if (seen.has(id) || !isLevelAllowed(caller.allowLevels, candidate.level)) {
      continue;
    }
    seen.add(id);
    const keys = keysInTurn(
      pool,
      candidate.level,
      sleeping,
      roundRobin.next(`${pool.ownerId}:${candidate.level}`),
    );
    if (keys.length > 0) {
      steps.push({ ...candidate, keys });
    }
  }
  if (steps.length === 0) {
    return { ok: false, reason: 'no_key_available', message: 'no upstream key is available for this model' };
  }
  return { ok: true, plan: { modelRequested: model, modelMapped: mapped, steps } };
}
