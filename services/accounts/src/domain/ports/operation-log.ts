import type { AuditTargetType } from '@gw/kit';

export interface OperationRecord {
  eventId: string;
  action: string;
  operatorId: bigint;
  /** What targetId names: an account, a provider key, an owner's configuration, news. */
  targetType: AuditTargetType;
  targetId: bigint;
  /** The owner whose tree the target is in when the operator came from outside it, else 0. */
  tenantId: bigint;
  details: string;
  ipAddress: string;
  status: string;
  createdAt: Date;
}

export interface OperationQuery {
  /** Entries this account did, or that targeted it as an account. */
  accountId: bigint;
  /** An owner also sees what was done inside its tree from outside it (root in multi-tenant mode). */
  tenantOwnerId?: bigint;
  action?: string;
  targetType?: AuditTargetType;
  targetId?: bigint;
  status?: string;
  limit: number;
  offset: number;
}

export interface OperationLog {
  /** Inserts one entry; false when its event id was already recorded. */
  insert(entry: OperationRecord): Promise<boolean>;
  /** One page, newest first, and how many match in all. */
  list(query: OperationQuery): Promise<{ rows: Array<OperationRecord & { id: bigint }>; total: number }>;
}
