import { AppError, callerMayUseModel, ErrorCode, keyModelField, type CallerIdentity } from '@gw/kit';
import { accountLevelMapper, accountMapper, callerMayUseLevel } from './allowlists.js';
import type { OwnerPool, PoolKey } from './pool.js';

/**
 * The routing decision for one request: which model goes to which Level, and the keys to try
 * there in order. Pure: sleeping keys and the round-robin cursor come in as arguments. The relay
 * follows it; route inspection (`/x-route`) shows it.
 */
export interface RouteStep {
  model: string;
  level: number;
  keys: PoolKey[];
}

export interface RoutePlan {
  modelRequested: string;
  /** After the account's ModelMapper, then the owner's MODEL_MAPPER. */
  modelMapped: string;
  /** The mapped model's Level (LEVEL_MAPPER), undefined when it is not routed. */
  level: number | undefined;
  /** The primary Level followed by its SWITCH_OVER chain. */
  levels: number[];
  /** MODEL_FAILOVER backups of the mapped model, in order. */
  failoverModels: string[];
  /** Every Level a step could use: the chain and the backups' Levels. */
  candidateLevels: number[];
  /** What to try, in order (empty when refused). */
  steps: RouteStep[];
}

export type RouteRefusal =
  'model_not_allowed' | 'level_not_allowed' | 'model_not_routed' | 'no_key_available';

export type PlanResult = { plan: RoutePlan } & (
  { ok: true } | { ok: false; reason: RouteRefusal; message: string }
);

const REFUSAL_CODES: Record<RouteRefusal, ErrorCode> = {
  model_not_allowed: ErrorCode.ModelNotAllowed,
  level_not_allowed: ErrorCode.Forbidden,
  model_not_routed: ErrorCode.NotFound,
  no_key_available: ErrorCode.Unavailable,
};

/** What a refused plan means for the client (the same over HTTP and realtime). */
export function refusalError(reason: RouteRefusal, message: string): AppError {
  return new AppError(REFUSAL_CODES[reason], message);
}

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
export function mapModel(model: string, accountMapperText: string, pool: OwnerPool): string {
  const afterAccount = accountMapper(accountMapperText).lookup(model) ?? model;
  return pool.routing.modelMapper.lookup(afterAccount) ?? afterAccount;
}

/**
 * The account's own LevelMapper (set by its owner) first, then LEVEL_MAPPER, most specific
 * pattern wins in each. With no LEVEL_MAPPER at all, the lowest Level of the pool serves every
 * model the account's does not name; with one, a model neither names is not routed (requests
 * that name no model go to the lowest Level).
 */
export function levelOf(pool: OwnerPool, model: string, accountLevelMapperText = ''): number | undefined {
  const own =
    accountLevelMapperText === '' ? undefined : accountLevelMapper(accountLevelMapperText).lookup(model);
  if (own !== undefined) {
    return own;
  }
  const { levelMapper } = pool.routing;
  const mapped = levelMapper.size > 0 ? levelMapper.lookup(model) : undefined;
  if (mapped !== undefined || (levelMapper.size > 0 && model !== '')) {
    return mapped;
  }
  const levels = pool.keys.filter((key) => key.active).map((key) => key.level);
  return levels.length > 0 ? Math.min(...levels) : undefined;
}

/** MODEL_FAILOVER `primary=b1|b2`: backups for a model, in order. */
export function failoverModels(pool: OwnerPool, model: string): string[] {
  return pool.routing.failover.lookup(model) ?? [];
}

/** SWITCH_OVER chain after `level` (1→2→3); a cycle stops at the first repeat. */
export function switchOverChain(pool: OwnerPool, level: number): number[] {
  const chain: number[] = [];
  const seen = new Set([level]);
  for (
    let current = pool.routing.switchOver.get(level);
    current !== undefined && !seen.has(current);
    current = pool.routing.switchOver.get(current)
  ) {
    seen.add(current);
    chain.push(current);
  }
  return chain;
}

/** Active keys of a Level awake for the model, rotated to start at the cursor. */
export function keysInTurn(
  pool: OwnerPool,
  level: number,
  sleeping: ReadonlySet<string>,
  cursor: number,
  model = '',
): PoolKey[] {
  const usable = pool.keys.filter(
    (key) =>
      key.level === level &&
      key.active &&
      !sleeping.has(key.id) &&
      !sleeping.has(keyModelField(key.id, model)),
  );
  if (usable.length === 0) {
    return [];
  }
  const start = cursor % usable.length;
  return [...usable.slice(start), ...usable.slice(0, start)];
}

/**
 * 1 map the model · 2 allowlist · 3 Level · 4 order: the primary Level's keys, then the backup
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
  const modelMapped = mapModel(model, caller.modelMapper, pool);
  const level = levelOf(pool, modelMapped, caller.levelMapper);
  const levels = level === undefined ? [] : [level, ...switchOverChain(pool, level)];
  const failover = failoverModels(pool, modelMapped);
  const backups = failover
    .map((backup) => ({ model: backup, level: levelOf(pool, backup, caller.levelMapper) }))
    .filter((backup): backup is { model: string; level: number } => backup.level !== undefined);
  const plan: RoutePlan = {
    modelRequested: model,
    modelMapped,
    level,
    levels,
    failoverModels: failover,
    candidateLevels: [...new Set([...levels, ...backups.map((backup) => backup.level)])],
    steps: [],
  };
  const refuse = (reason: RouteRefusal, message: string): PlanResult => ({
    ok: false,
    reason,
    message,
    plan,
  });

  // AllowModels, the account's and its ancestors', holds for the model named and for what the
  // account's own ModelMapper makes of it.
  const afterAccount = accountMapper(caller.modelMapper).lookup(model) ?? model;
  for (const name of new Set([model, afterAccount])) {
    if (!callerMayUseModel(caller, name)) {
      return refuse('model_not_allowed', `model ${name} is not allowed for this key`);
    }
  }
  if (level === undefined) {
    return refuse('model_not_routed', `model ${modelMapped} is not routed to any Level`);
  }
  if (!callerMayUseLevel(caller, level)) {
    return refuse('level_not_allowed', `Level ${level} is not allowed for this key`);
  }

  const candidates = [
    { model: modelMapped, level },
    ...backups,
    ...levels.slice(1).map((backupLevel) => ({ model: modelMapped, level: backupLevel })),
  ];
  // A switched Level (too many failures, cool-down running) is tried only after everything else.
  const ordered = [
    ...candidates.filter((c) => !switched.has(c.level)),
    ...candidates.filter((c) => switched.has(c.level)),
  ];
  const seen = new Set<string>();
  for (const candidate of ordered) {
    const id = `${candidate.model}\u0000${candidate.level}`;
    if (seen.has(id) || !callerMayUseLevel(caller, candidate.level)) {
      continue;
    }
    seen.add(id);
    const keys = keysInTurn(
      pool,
      candidate.level,
      sleeping,
      roundRobin.next(`${pool.ownerId}:${candidate.level}`),
      candidate.model,
    );
    if (keys.length > 0) {
      plan.steps.push({ model: candidate.model, level: candidate.level, keys });
    }
  }
  if (plan.steps.length === 0) {
    return refuse('no_key_available', 'no upstream key is available for this model');
  }
  return { ok: true, plan };
}
