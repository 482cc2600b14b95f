import { describe, expect, it } from 'vitest';
import { assertJsonDepth } from './json-depth.js';

describe('assertJsonDepth', () => {
  const nested = (depth: number) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`);

  it('accepts the bound and refuses one level more', () => {
    expect(() => assertJsonDepth(nested(32), 32)).not.toThrow();
    expect(() => assertJsonDepth(nested(33), 32)).toThrow(/deeper than 32 levels/);
  });

  it('refuses 10 000 levels without recursing, and ignores brackets inside strings', () => {
    expect(() => assertJsonDepth(nested(10_000), 32)).toThrow(/deeper/);
    const quoted = Buffer.from(JSON.stringify({ a: '['.repeat(1000), b: 'x\\"{{{{' }));
    expect(() => assertJsonDepth(quoted, 32)).not.toThrow();
  });
});
