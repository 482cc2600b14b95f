import { rowsOf } from '@gw/kit';
import { sql } from 'drizzle-orm';
import type { ConservationReport, ConservationRow } from '../domain/ports/conservation.js';
import type { Executor } from './executor.js';

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
    const rows = rowsOf<Record<string, string>>(result);
    return rows.map((row): ConservationRow => ({
      ownerId: BigInt(row.owner_id ?? '0'),
      mintedNano: BigInt(row.minted ?? '0'),
      transfersInNano: BigInt(row.transfers ?? '0'),
      lotsNano: BigInt(row.live ?? '0'),
      debtNano: BigInt(row.debt ?? '0'),
      usageNano: BigInt(row.usage ?? '0'),
      feesNano: BigInt(row.fees ?? '0'),
      expiredNano: BigInt(row.expired ?? '0'),
    }));
  }
}
