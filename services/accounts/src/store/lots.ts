import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { CreditLot } from '../domain/model.js';
import type { LotWrites, NewLot } from '../domain/ports/lots.js';
import type { Executor } from './executor.js';
import { creditLots } from './schema.js';

function toLot(row: typeof creditLots.$inferSelect): CreditLot {
  return { id: row.id, accountId: row.accountId, remainingNano: row.remainingNano, expiresAt: row.expiresAt };
}

/** Credit lots over drizzle, on the database or inside one transaction. */
export class DrizzleLots implements LotWrites {
  constructor(private readonly db: Executor) {}

  async live(accountIds: readonly bigint[], now: Date) {
    if (accountIds.length === 0) {
      return [];
    }
    return (await this.liveOf(accountIds, now)).map(toLot);
  }

  async lockSpendable(accountId: bigint, now: Date) {
    return (await this.liveOf([accountId], now).for('update')).map(toLot);
  }

  async take(lotId: bigint, amountNano: bigint) {
    const rows = await this.db
      .update(creditLots)
      .set({ remainingNano: sql`${creditLots.remainingNano} - ${amountNano}` })
      .where(and(eq(creditLots.id, lotId), sql`${creditLots.remainingNano} >= ${amountNano}`))
      .returning({ id: creditLots.id });
    return rows.length === 1;
  }

  async insert(lot: NewLot) {
    await this.db.insert(creditLots).values({
      accountId: lot.accountId,
      grantedNano: lot.amountNano,
      remainingNano: lot.amountNano,
      expiresAt: lot.expiresAt,
      ledgerId: lot.ledgerId,
      createdAt: sql`now()`,
    });
  }

  /** Unexpired lots with something left, earliest expiry first (the order every spend takes). */
  private liveOf(accountIds: readonly bigint[], now: Date) {
    return this.db
      .select()
      .from(creditLots)
      .where(
        and(
          inArray(creditLots.accountId, [...accountIds]),
          gt(creditLots.remainingNano, 0n),
          gt(creditLots.expiresAt, now),
        ),
      )
      .orderBy(asc(creditLots.expiresAt), asc(creditLots.id));
  }
}
