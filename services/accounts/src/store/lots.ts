import { column, rowsChanged } from '@gw/kit';
import { and, asc, gt, sql } from 'drizzle-orm';
import type { CreditLot } from '../domain/model.js';
import type { LotTake, LotWrites, NewLot } from '../domain/ports/lots.js';
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

  async lockSpendable(accountIds: readonly bigint[], now: Date) {
    if (accountIds.length === 0) {
      return [];
    }
    return (await this.liveOf(accountIds, now).for('update')).map(toLot);
  }

  async take(takes: readonly LotTake[]) {
    if (takes.length === 0) {
      return true;
    }
    const result = await this.db.execute(sql`
      UPDATE accounts.credit_lots AS l SET remaining_nano = l.remaining_nano - t.take_nano
        FROM unnest(${column(takes, (take) => String(take.lotId))}::bigint[],
                    ${column(takes, (take) => String(take.takeNano))}::bigint[]) AS t(id, take_nano)
       WHERE l.id = t.id AND l.remaining_nano >= t.take_nano`);
    return rowsChanged(result) === takes.length;
  }

  async insert(lot: NewLot, at: Date) {
    await this.db.insert(creditLots).values({
      accountId: lot.accountId,
      grantedNano: lot.amountNano,
      remainingNano: lot.amountNano,
      expiresAt: lot.expiresAt,
      ledgerId: lot.ledgerId,
      createdAt: at,
    });
  }

  /** Unexpired lots with something left, earliest expiry first (the order every spend takes). */
  private liveOf(accountIds: readonly bigint[], now: Date) {
    return this.db
      .select()
      .from(creditLots)
      .where(
        and(
          sql`${creditLots.accountId} = ANY(${column(accountIds, String)}::bigint[])`,
          gt(creditLots.remainingNano, 0n),
          gt(creditLots.expiresAt, now),
        ),
      )
      .orderBy(asc(creditLots.expiresAt), asc(creditLots.id));
  }
}
