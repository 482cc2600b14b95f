import { NO_INHERITED, type CallerIdentity } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { ownerPool, poolKey, type OwnerPool, type PoolKey } from './pool.js';
import { keysInTurn, levelOf, mapModel, planRoute, RoundRobin, switchOverChain } from './route-plan.js';

function makeKey(overrides: Partial<PoolKey> = {}): PoolKey {
  return poolKey({
    id: '1',
    level: 1,
    provider: 'http://upstream',
    secret: 's',
    active: true,
    type: 'standard',
    config: {},
    ...overrides,
  });
}

function makePool(overrides: Partial<Omit<OwnerPool, 'routing'>> = {}): OwnerPool {
  return ownerPool({
    ownerId: '1',
    version: '1',
    ownerIsRoot: true,
    keys: [
      makeKey({ id: '1', level: 1 }),
      makeKey({ id: '2', level: 1 }),
      makeKey({ id: '3', level: 2 }),
      makeKey({ id: '4', level: 3 }),
    ],
    config: {},
    ...overrides,
  });
}

function makeCaller(overrides: Partial<CallerIdentity> = {}): CallerIdentity {
  return {
    accountId: '9',
    ownerId: '1',
    allowModels: '',
    allowLevels: '',
    modelMapper: '',
    levelMapper: '',
    resources: '',
    limits: {},
    modelLimits: '',
    inherited: NO_INHERITED,
    ...overrides,
  };
}

describe('mapModel', () => {
  it('applies the account mapper first, then the owner mapper', () => {
    const pool = makePool({ config: { MODEL_MAPPER: 'gpt-4o*=gpt-4o-2024' } });
    expect(mapModel('fast', 'fast=gpt-4o-mini', pool)).toBe('gpt-4o-2024');
    expect(
      mapModel('gpt-4o', '', makePool({ config: { MODEL_MAPPER: 'gpt-4o=gpt-4o-2024, *=fallback' } })),
    ).toBe('gpt-4o-2024');
    expect(mapModel('other', '', makePool())).toBe('other');
  });
});

describe('levelOf', () => {
  it('uses the most specific LEVEL_MAPPER pattern', () => {
    const pool = makePool({ config: { LEVEL_MAPPER: 'gpt-*=2, gpt-4o=3, *=1' } });
    expect(levelOf(pool, 'gpt-4o')).toBe(3);
    expect(levelOf(pool, 'gpt-3.5')).toBe(2);
    expect(levelOf(pool, 'claude')).toBe(1);
  });

  it('leaves a model LEVEL_MAPPER does not name unrouted, and uses the lowest Level without one', () => {
    expect(levelOf(makePool({ config: { LEVEL_MAPPER: 'gpt-*=2' } }), 'claude')).toBeUndefined();
    expect(levelOf(makePool({ config: { LEVEL_MAPPER: 'gpt-*=2' } }), '')).toBe(1);
    expect(levelOf(makePool(), 'anything')).toBe(1);
  });
});

describe("the account's LevelMapper", () => {
  it("routes the account's models ahead of the owner's LEVEL_MAPPER, and only those it names", () => {
    const pool = makePool({ config: { LEVEL_MAPPER: 'gpt-*=2, *=1' } });
    expect(levelOf(pool, 'gpt-4o', 'gpt-4o=3')).toBe(3);
    expect(levelOf(pool, 'gpt-4.1', 'gpt-4o=3')).toBe(2);
    expect(levelOf(makePool(), 'anything', 'any*=4')).toBe(4);
    const caller = makeCaller({ levelMapper: 'a=9' });
    expect(planRoute(pool, caller, 'a', new Set(), new RoundRobin()).plan.level).toBe(9);
  });
});

describe('switchOverChain', () => {
  it('follows the chain in order and stops at a cycle', () => {
    expect(switchOverChain(makePool({ config: { SWITCH_OVER: '1=2, 2=3' } }), 1)).toEqual([2, 3]);
    expect(switchOverChain(makePool({ config: { SWITCH_OVER: '1=2, 2=3, 3=1' } }), 1)).toEqual([2, 3]);
    expect(switchOverChain(makePool({ config: { SWITCH_OVER: '1=1' } }), 1)).toEqual([]);
  });
});

describe('keysInTurn', () => {
  it('rotates active, awake keys of the Level from the cursor', () => {
    const pool = makePool({ keys: ['1', '2', '3'].map((id) => makeKey({ id })) });
    expect(keysInTurn(pool, 1, new Set(), 0).map((key) => key.id)).toEqual(['1', '2', '3']);
    expect(keysInTurn(pool, 1, new Set(), 1).map((key) => key.id)).toEqual(['2', '3', '1']);
    expect(keysInTurn(pool, 1, new Set(['2']), 1).map((key) => key.id)).toEqual(['3', '1']);
  });

  it('skips disabled keys', () => {
    const pool = makePool({ keys: [makeKey({ id: '1', active: false }), makeKey({ id: '2' })] });
    expect(keysInTurn(pool, 1, new Set(), 0).map((key) => key.id)).toEqual(['2']);
  });
});

describe('planRoute', () => {
  it('orders the primary Level, then MODEL_FAILOVER backups, then the SWITCH_OVER chain', () => {
    const pool = makePool({
      config: { LEVEL_MAPPER: 'a=1, b=3', MODEL_FAILOVER: 'a=b', SWITCH_OVER: '1=2' },
    });
    const result = planRoute(pool, makeCaller(), 'a', new Set(), new RoundRobin());
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(
        result.plan.steps.map((step) => [step.model, step.level, step.keys.map((key) => key.id)]),
      ).toEqual([
        ['a', 1, ['1', '2']],
        ['b', 3, ['4']],
        ['a', 2, ['3']],
      ]);
    }
  });

  it("refuses a model, a Level or an account mapping its ancestors' lists leave out", () => {
    const pool = makePool({ config: { LEVEL_MAPPER: 'a=1, b=2, c=1' } });
    const narrowed = makeCaller({
      inherited: { ...NO_INHERITED, allowModels: ['a b', 'a c'], allowLevels: ['1'] },
    });
    expect(planRoute(pool, narrowed, 'a', new Set(), new RoundRobin()).ok).toBe(true);
    expect(planRoute(pool, narrowed, 'b', new Set(), new RoundRobin())).toMatchObject({
      ok: false,
      reason: 'model_not_allowed',
    });
    const mapped = { ...narrowed, modelMapper: 'a=c' };
    expect(planRoute(pool, mapped, 'a', new Set(), new RoundRobin())).toMatchObject({
      ok: false,
      reason: 'model_not_allowed',
    });
    const wide = makeCaller({ inherited: { ...NO_INHERITED, allowLevels: ['2'] } });
    expect(planRoute(pool, wide, 'a', new Set(), new RoundRobin())).toMatchObject({
      ok: false,
      reason: 'level_not_allowed',
    });
  });

  it('tries a switched Level only after everything else', () => {
    const pool = makePool({ config: { LEVEL_MAPPER: 'a=1', SWITCH_OVER: '1=2, 2=3' } });
    const result = planRoute(pool, makeCaller(), 'a', new Set(), new RoundRobin(), new Set([1]));
    expect(result.ok && result.plan.steps.map((step) => step.level)).toEqual([2, 3, 1]);
  });

  it('takes turns between requests', () => {
    const pool = makePool();
    const roundRobin = new RoundRobin();
    const first = planRoute(pool, makeCaller(), 'm', new Set(), roundRobin);
    const second = planRoute(pool, makeCaller(), 'm', new Set(), roundRobin);
    expect(first.ok && first.plan.steps[0]?.keys[0]?.id).toBe('1');
    expect(second.ok && second.plan.steps[0]?.keys[0]?.id).toBe('2');
  });

  it('refuses a model outside AllowModels and a Level outside AllowLevels', () => {
    const pool = makePool({ config: { LEVEL_MAPPER: 'a=1, b=2' } });
    expect(
      planRoute(pool, makeCaller({ allowModels: 'b*' }), 'a', new Set(), new RoundRobin()),
    ).toMatchObject({ ok: false, reason: 'model_not_allowed' });
    expect(planRoute(pool, makeCaller({ allowLevels: '2' }), 'a', new Set(), new RoundRobin())).toMatchObject(
      { ok: false, reason: 'level_not_allowed' },
    );
  });

  it('skips switch-over Levels the account may not use', () => {
    const pool = makePool({ config: { SWITCH_OVER: '1=2, 2=3' } });
    const result = planRoute(pool, makeCaller({ allowLevels: '1,3' }), 'a', new Set(), new RoundRobin());
    expect(result.ok && result.plan.steps.map((step) => step.level)).toEqual([1, 3]);
  });

  it('reports an unrouted model and a pool with nothing awake', () => {
    expect(
      planRoute(
        makePool({ config: { LEVEL_MAPPER: 'x=1' } }),
        makeCaller(),
        'y',
        new Set(),
        new RoundRobin(),
      ),
    ).toMatchObject({ ok: false, reason: 'model_not_routed' });
    expect(planRoute(makePool(), makeCaller(), 'y', new Set(['1', '2']), new RoundRobin())).toMatchObject({
      ok: false,
      reason: 'no_key_available',
    });
  });
});
