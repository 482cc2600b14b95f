import { and, count, desc, eq, or, type SQL } from 'drizzle-orm';
import type { OperationLog, OperationQuery, OperationRecord } from '../domain/ports/operation-log.js';
import type { Executor } from './executor.js';
import { operationLog } from './schema.js';

/** The operation log over drizzle. */
export class DrizzleOperationLog implements OperationLog {
  constructor(private readonly db: Executor) {}

  async insert(entry: OperationRecord) {
    const rows = await this.db
      .insert(operationLog)
      .values(entry)
      .onConflictDoNothing()
      .returning({ id: operationLog.id });
    return rows.length === 1;
  }

  async list(query: OperationQuery) {
    const conditions: SQL[] = [];
    const mine = or(
      eq(operationLog.operatorId, query.accountId),
      and(eq(operationLog.targetType, 'account'), eq(operationLog.targetId, query.accountId)),
      query.tenantOwnerId === undefined ? undefined : eq(operationLog.tenantId, query.tenantOwnerId),
    );
    if (mine) {
      conditions.push(mine);
    }
    if (query.targetType !== undefined) {
      conditions.push(eq(operationLog.targetType, query.targetType));
    }
    if (query.action !== undefined) {
      conditions.push(eq(operationLog.action, query.action));
    }
    if (query.targetId !== undefined) {
      conditions.push(eq(operationLog.targetId, query.targetId));
    }
    if (query.status !== undefined) {
      conditions.push(eq(operationLog.status, query.status));
    }
    const where = and(...conditions);
    const rows = await this.db
      .select()
      .from(operationLog)
      .where(where)
      .orderBy(desc(operationLog.id))
      .limit(query.limit)
      .offset(query.offset);
    const [counted] = await this.db.select({ n: count() }).from(operationLog).where(where);
    return { rows, total: counted?.n ?? 0 };
  }
}
