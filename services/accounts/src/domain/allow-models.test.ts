import { describe, expect, it } from 'vitest';
import { applyAllowModels } from './allow-models.js';

describe('applyAllowModels', () => {
  it('adds entries once, in order', () => {
    expect(applyAllowModels('', 'gpt-4o, claude-*')).toBe('gpt-4o claude-*');
    expect(applyAllowModels('gpt-4o', 'gpt-4o o3')).toBe('gpt-4o o3');
  });

  it('removes an entry with -model and ignores a missing one', () => {
    expect(applyAllowModels('gpt-4o o3', '-gpt-4o')).toBe('o3');
    expect(applyAllowModels('o3', '-nothing')).toBe('o3');
  });

  it('resets with * and applies what follows', () => {
    expect(applyAllowModels('gpt-4o o3', '*')).toBe('');
    expect(applyAllowModels('gpt-4o o3', '* gemini-*')).toBe('gemini-*');
  });

  it("resets to the given list (a parent's) rather than to everything", () => {
    expect(applyAllowModels('gpt-4o-mini', '*', 'gpt-4o* o3')).toBe('gpt-4o* o3');
  });
});
