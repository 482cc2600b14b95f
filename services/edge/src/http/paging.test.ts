import { describe, expect, it } from 'vitest';
import { listKeysQuery } from './x-keys/schemas.js';
import { listQuery } from './x-users/schemas.js';

describe('one paging rule for every list', () => {
  it.each([
    ['/x-users', listQuery],
    ['/x-keys', listKeysQuery],
  ] as const)('%s caps a size above 1000 and refuses page=0 and size=0', (_path, schema) => {
    expect(schema.parse({ size: '5000', page: '2' })).toMatchObject({ size: 1000, page: 2 });
    expect(schema.parse({ size: '7' })).toMatchObject({ size: 7 });
    for (const bad of [{ page: '0' }, { size: '0' }, { page: '-1' }, { size: 'x' }, { page: '1000001' }]) {
      expect(schema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
