import { bigintText, rowsOf } from '@gw/kit';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { ConservationReport, ConservationRow } from '../domain/ports/conservation.js';
import type { Executor } from './executor.js';

/** One owner tree's sums, as the statement below answers them. */
const TotalsRow = z.object({
  owner_id: bigintText,
  minted: bigintText,
  transfers: bigintText,
  usage: bigintText,
  fees: bigintText,
  live: bigintText,
  expired: bigintText,
  debt: bigintText,
});

/** The conservation sums per owner tree, in one statement over accounts, ledger and lots. */
export class DrizzleConservationReport implements ConservationReport {
  constructor(private readonly db: Executor) {}

  async totals(now: Date) {
    const result = await this.db.execute(sql`
      SELECT o.owner_id::text AS owner_id,
             COALESCE(m.minted, 0)::text AS minted, COALESCE(m.transfers, 0)::text AS transfers,
             COALESCE(m.usage, 0)::text AS usage, COALESCE(m.fees, 0)::text AS fees,
             COALESCE(c.live, 0)::text AS live, COALESCE(c.expired, 0)::text AS expired, o.debt::text AS debt
      FROM (SELECT owner_id, SUM(debt_nano) AS debt FROM accounts.accounts GROUP BY owner_id) o
      LEFT JOIN (
        SELECT a.owner_id,
               SUM(CASE WHEN g.kind = 'mint' THEN g.amount_nano ELSE 0 END) AS minted,
               SUM(CASE WHEN g.kind IN ('grant', 'clawback', 'refund', 'debt') THEN g.amount_nano ELSE 0 END) AS transfers,
               SUM(CASE WHEN g.kind = 'usage' THEN -g.amount_nano ELSE 0 END) AS usage,
               SUM(CASE WHEN g.kind = 'fee' THEN -g.amount_nano ELSE 0 END) AS fees
        FROM accounts.ledger g JOIN accounts.accounts a ON a.id = g.account_id
        GROUP BY a.owner_id
      ) m ON m.owner_id = o.owner_id
      LEFT JOIN (
        SELECT a.owner_id,
               SUM(CASE WHEN l.expires_at > ${now} THEN l.remaining_nano ELSE 0 END) AS live,
               SUM(CASE WHEN l.expires_at <= ${now} THEN l.remaining_nano ELSE 0 END) AS expired
        FROM accounts.credit_lots l JOIN accounts.accounts a ON a.id = l.account_id
        GROUP BY a.owner_id
      ) c ON c.owner_id = o.owner_id
      ORDER BY o.owner_id`);
    return rowsOf(result, TotalsRow).map((row): ConservationRow => ({
      ownerId: row.owner_id,
      mintedNano: row.minted,
      transfersInNano: row.transfers,
      lotsNano: row.live,
      debtNano: row.debt,
      usageNano: row.usage,
      feesNano: row.fees,
      expiredNano: row.expired,
    }));
  }
}
