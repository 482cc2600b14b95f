export interface OperationRecord {
  eventId: string;
  action: string;
  operatorId: bigint;
  targetId: bigint;
  details: string;
  ipAddress: string;
  status: string;
  createdAt: Date;
}

export interface OperationQuery {
  /** Entries this account did or that targeted it. */
  accountId: bigint;
  action?: string;
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
