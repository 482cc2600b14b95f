import { describe, expect, it } from 'vitest';
import { assertJsonDepth, MAX_JSON_DEPTH } from './json-body.js';

describe('assertJsonDepth', () => {
  const nested = (depth: number) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`);

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(() => assertJsonDepth(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => assertJsonDepth(nested(MAX_JSON_DEPTH + 1))).toThrow(/deeper than 32 levels/);
  });

  it('refuses 10 000 levels without recursing, and ignores brackets inside strings', () => {
    expect(() => assertJsonDepth(nested(10_000))).toThrow(/deeper/);
    const quoted = Buffer.from(JSON.stringify({ a: '['.repeat(1000), b: 'x\\"{{{{' }));
    expect(() => assertJsonDepth(quoted)).not.toThrow();
  });
});
