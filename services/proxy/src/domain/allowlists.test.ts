import { describe, expect, it } from 'vitest';
import { NO_INHERITED, type CallerIdentity } from '@gw/kit';
import {
  accountMapper,
  callerMayUseLevel,
  callerMayUseModel,
  isLevelAllowed,
  isModelAllowed,
} from './allowlists.js';

describe('allowlists', () => {
  it('allows every model and Level when empty', () => {
    expect(isModelAllowed('', 'anything')).toBe(true);
    expect(isLevelAllowed('', 7)).toBe(true);
  });

  it('checks space-separated model patterns and comma or space separated Levels', () => {
    expect(isModelAllowed('gpt-4* claude-3', 'gpt-4o')).toBe(true);
    expect(isModelAllowed('gpt-4* claude-3', 'claude-3-opus')).toBe(false);
    expect(isModelAllowed('gpt-4*,claude-3', 'claude-3')).toBe(true);
    expect(isLevelAllowed('1,2 3', 3)).toBe(true);
    expect(isLevelAllowed('1,2', 3)).toBe(false);
  });

  it('answers the same for a list it has compiled before', () => {
    expect(isModelAllowed('a*', 'abc')).toBe(true);
    expect(isModelAllowed('a*', 'bcd')).toBe(false);
    expect(accountMapper('fast=gpt-4o-mini').lookup('fast')).toBe('gpt-4o-mini');
    expect(accountMapper('fast=gpt-4o-mini').lookup('slow')).toBeUndefined();
  });
});

describe("the caller's effective lists (its own and its ancestors')", () => {
  const caller = (inherited: Partial<CallerIdentity['inherited']>): CallerIdentity => ({
    accountId: '9',
    ownerId: '1',
    allowModels: 'gpt-4o*',
    allowLevels: '',
    modelMapper: '',
    resources: '',
    limits: {},
    modelLimits: '',
    inherited: { ...NO_INHERITED, ...inherited },
  });

  it('allows a model or Level only when every list allows it', () => {
    expect(callerMayUseModel(caller({}), 'gpt-4o-mini')).toBe(true);
    expect(callerMayUseModel(caller({ allowModels: ['o3'] }), 'gpt-4o-mini')).toBe(false);
    expect(callerMayUseModel(caller({ allowModels: ['gpt-4o-mini', 'gpt-4*'] }), 'gpt-4o-mini')).toBe(true);
    expect(callerMayUseLevel(caller({ allowLevels: ['1,2', '2'] }), 2)).toBe(true);
    expect(callerMayUseLevel(caller({ allowLevels: ['1,2', '2'] }), 1)).toBe(false);
  });
});
