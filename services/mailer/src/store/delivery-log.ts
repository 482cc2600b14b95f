import type { Database } from '@gw/kit';
import { and, asc, eq, type SQL } from 'drizzle-orm';
import type { DeliveryEntry, DeliveryLog } from '../domain/ports/delivery-log.js';
import { deliveries } from './schema.js';

const MAX_ROWS = 1000;

/** The DeliveryLog port over drizzle (PostgreSQL). */
export class DrizzleDeliveryLog implements DeliveryLog {
  constructor(private readonly db: Database) {}

  async record(entry: DeliveryEntry): Promise<void> {
    await this.db.insert(deliveries).values(entry);
  }

  async list(filter: { recipient?: string; jobId?: string }) {
    const conditions: SQL[] = [];
    if (filter.recipient) {
      conditions.push(eq(deliveries.recipient, filter.recipient));
    }
    if (filter.jobId) {
      conditions.push(eq(deliveries.jobId, filter.jobId));
    }
    const rows = await this.db
      .select()
      .from(deliveries)
      .where(and(...conditions))
      .orderBy(asc(deliveries.id))
      .limit(MAX_ROWS);
    return rows.map((row) => ({ ...row, at: row.createdAt }));
  }
}
