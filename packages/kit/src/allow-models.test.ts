import { describe, expect, it } from 'vitest';
import { callerMayUseModel, isModelAllowed } from './allow-models.js';

describe('isModelAllowed', () => {
  it('allows every model when empty and matches `*` suffix patterns otherwise', () => {
    expect(isModelAllowed('', 'anything')).toBe(true);
    expect(isModelAllowed('gpt-4o* claude-3', 'gpt-4o-mini')).toBe(true);
    expect(isModelAllowed('gpt-4o*,claude-3', 'claude-3')).toBe(true);
    expect(isModelAllowed('gpt-4o* claude-3', 'claude-3-opus')).toBe(false);
  });
});

describe('callerMayUseModel', () => {
  it("needs the caller's own list and every ancestor's to allow the model", () => {
    const caller = (inherited: string[]) => ({
      allowModels: 'gpt-4o*',
      inherited: { allowModels: inherited },
    });
    expect(callerMayUseModel(caller([]), 'gpt-4o-mini')).toBe(true);
    expect(callerMayUseModel(caller(['gpt-4o-mini*', '']), 'gpt-4o-mini')).toBe(true);
    expect(callerMayUseModel(caller(['o3']), 'gpt-4o-mini')).toBe(false);
    expect(callerMayUseModel(caller([]), 'o3')).toBe(false);
  });
});
