import { NO_INHERITED, type CallerIdentity } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { callWindows } from './call-limits.js';
import { modelLimitTable } from './limits.js';
import { ownerPool, type OwnerPool } from './pool.js';

const pool = (modelLimits: string): OwnerPool =>
  ownerPool({
    ownerId: '1',
    version: '1',
    ownerIsRoot: true,
    keys: [],
    config: { MODEL_LIMITS: modelLimits },
  });

const caller = (): CallerIdentity => ({
  accountId: '9',
  ownerId: '1',
  allowModels: '',
  allowLevels: '',
  modelMapper: '',
  levelMapper: '',
  resources: '',
  limits: { rpm: 5 },
  modelLimits: '',
  inherited: NO_INHERITED,
});

const noDefaults = modelLimitTable({});

describe('callWindows', () => {
  it('works a caller’s windows out once per pool and model, and again when the pool changes', () => {
    const ann = caller();
    const first = pool('{"gpt-4o*":{"rpm":2}}');
    const windows = callWindows(ann, first, noDefaults, 'gpt-4o-mini');
    expect(windows.map(({ scope, field, limit }) => `${scope} ${field} ${limit}`)).toEqual([
      'a:9 rpm 5',
      'm:9:1:gpt-4o* rpm 2',
    ]);
    expect(callWindows(ann, first, noDefaults, 'gpt-4o-mini')).toBe(windows);
    expect(callWindows(ann, first, noDefaults, 'o3')).toEqual([windows[0]]);
    // The owner changed MODEL_LIMITS: a new pool object, new windows.
    const changed = callWindows(ann, pool('{"gpt-4o*":{"rpm":1}}'), noDefaults, 'gpt-4o-mini');
    expect(changed.map(({ limit }) => limit)).toEqual([5, 1]);
    // Another identity (the account's cache entry was renewed) is worked out on its own.
    expect(callWindows(caller(), first, noDefaults, 'gpt-4o-mini')).not.toBe(windows);
  });
});
