import { describe, expect, it } from 'vitest';
import { moneyWorld } from '../../test/memory-store/money-world.js';
import { listAccounts } from './list-accounts.js';

describe('listAccounts', () => {
  it('refuses a Level filter outside 0-9 in the path as in the query', async () => {
    const world = await moneyWorld();
    const list = (filter: { identifier?: string; level?: number }) =>
      listAccounts(world.deps, {
        callerId: world.root.id,
        reach: 'children',
        filter,
        page: 1,
        size: 10,
        order: '',
      });
    await expect(list({ identifier: 'L9' })).resolves.toMatchObject({ total: 0 });
    await expect(list({ identifier: 'L10' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('Level must be an integer from 0 to 9'),
    });
  });
});
