import { AppError } from '@gw/kit';
import { describe, expect, it } from 'vitest';
import { moneyWorld } from '../../test/memory-store/money-world.js';
import { writtenAccount } from './account-write.js';

describe('writtenAccount', () => {
  it('answers the written account and words each refusal the store reports', async () => {
    const { root } = await moneyWorld();
    expect(writtenAccount({ written: root })).toBe(root);
    const refusals = [
      [{ refused: 'name_taken' }, 'conflict', 'Name is already taken'],
      [{ refused: 'email_taken' }, 'conflict', 'Email is already registered'],
      [{ refused: 'not_found' }, 'not_found', 'no such account'],
    ] as const;
    for (const [result, code, message] of refusals) {
      const error = (() => {
        try {
          return writtenAccount(result);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code, message });
    }
  });

  it('is how a store refusal of a taken name or e-mail reaches the caller', async () => {
    const world = await moneyWorld();
    const { root } = world;
    const insert = (nameKey: string, emailKey: string) =>
      world.store.transaction(async (tx) =>
        tx.accounts.insert(
          {
            ...root,
            isRoot: false,
            isOwner: false,
            parentId: root.id,
            ownerId: root.id,
            keyHash: 'f'.repeat(64),
            nameKey,
            emailKey,
          },
          root.dna,
          world.clock.now(),
        ),
      );
    const byName = await insert('root', 'someone@example.com');
    expect(byName).toEqual({ refused: 'name_taken' });
    expect(() => writtenAccount(byName)).toThrow('Name is already taken');
    const byEmail = await insert('someone', 'root@localhost.invalid');
    expect(() => writtenAccount(byEmail)).toThrow('Email is already registered');
    expect(world.store.tables().accounts.size).toBe(1);
  });
});
