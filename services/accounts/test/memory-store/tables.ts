import type { AccountRecord } from '../../src/domain/model.js';
import type { StoredIdempotency } from '../../src/domain/ports/idempotency.js';
import type { LedgerRow } from '../../src/domain/ports/ledger.js';
import type { OperationRecord } from '../../src/domain/ports/operation-log.js';

/** An account row as the migrations define it: the record plus the columns only the store sees. */
export interface AccountRow extends AccountRecord {
  nameKey: string;
  emailKey: string;
  deletedAt: Date | null;
  softAlertMonth: string | null;
  nameScope: bigint;
}

interface LotRow {
  id: bigint;
  accountId: bigint;
  grantedNano: bigint;
  remainingNano: bigint;
  expiresAt: Date;
  ledgerId: bigint;
  createdAt: Date;
}

interface LedgerEntry extends LedgerRow {
  id: bigint;
  createdAt: Date;
}

/**
 * The accounts schema in memory: a transaction works on a copy and commits by swapping it in,
 * so a refused operation leaves every table as it was.
 */
export interface Tables {
  accounts: Map<bigint, AccountRow>;
  lots: Map<bigint, LotRow>;
  ledger: LedgerEntry[];
  /** Keyed by `${callerId}:${key}` (the table's primary key). */
  idempotency: Map<string, StoredIdempotency>;
  operations: Array<OperationRecord & { id: bigint }>;
  /** The bigserial sequences. */
  next: { account: bigint; lot: bigint; ledger: bigint; operation: bigint };
}

export function emptyTables(): Tables {
  return {
    accounts: new Map(),
    lots: new Map(),
    ledger: [],
    idempotency: new Map(),
    operations: [],
    next: { account: 1n, lot: 1n, ledger: 1n, operation: 1n },
  };
}

/** Draws the next value of a sequence. */
export function draw(tables: Tables, sequence: keyof Tables['next']): bigint {
  const value = tables.next[sequence];
  tables.next[sequence] = value + 1n;
  return value;
}
