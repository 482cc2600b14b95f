import { describe, expect, it } from 'vitest';
import { NO_INHERITED, type CallerIdentity } from '@gw/kit';
import { accountMapper, callerMayUseLevel, isLevelAllowed } from './allowlists.js';

describe('allowlists', () => {
  it('allows every Level when empty', () => {
    expect(isLevelAllowed('', 7)).toBe(true);
  });

  it('checks comma or space separated Levels', () => {
    expect(isLevelAllowed('1,2 3', 3)).toBe(true);
    expect(isLevelAllowed('1,2', 3)).toBe(false);
  });

  it('answers the same for a list it has compiled before', () => {
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
    levelMapper: '',
    resources: '',
    limits: {},
    modelLimits: '',
    inherited: { ...NO_INHERITED, ...inherited },
  });

  it('allows a Level only when every list allows it', () => {
    expect(callerMayUseLevel(caller({ allowLevels: ['1,2', '2'] }), 2)).toBe(true);
    expect(callerMayUseLevel(caller({ allowLevels: ['1,2', '2'] }), 1)).toBe(false);
  });
});
