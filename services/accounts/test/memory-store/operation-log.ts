import type { OperationLog, OperationQuery, OperationRecord } from '../../src/domain/ports/operation-log.js';
import { draw, type Tables } from './tables.js';

/** The operation log in memory, unique per event id, newest first. */
export class MemoryOperationLog implements OperationLog {
  constructor(private readonly tables: () => Tables) {}

  async insert(entry: OperationRecord) {
    const tables = this.tables();
    if (tables.operations.some((row) => row.eventId === entry.eventId)) {
      return false;
    }
    tables.operations.push({ ...entry, id: draw(tables, 'operation') });
    return true;
  }

  async list(query: OperationQuery) {
    const wanted = this.tables()
      .operations.filter(
        (row) =>
          (row.operatorId === query.accountId ||
            (row.targetType === 'account' && row.targetId === query.accountId) ||
            (query.tenantOwnerId !== undefined && row.tenantId === query.tenantOwnerId)) &&
          (query.action === undefined || row.action === query.action) &&
          (query.targetType === undefined || row.targetType === query.targetType) &&
          (query.targetId === undefined || row.targetId === query.targetId) &&
          (query.status === undefined || row.status === query.status),
      )
      .sort((a, b) => (a.id < b.id ? 1 : -1));
    return { rows: wanted.slice(query.offset, query.offset + query.limit), total: wanted.length };
  }
}
