import { childDna } from '../../src/domain/dna.js';
import { nameScopeOf } from '../../src/domain/tenancy.js';
import type { AccountRecord, NewAccount } from '../../src/domain/model.js';
import type {
  AccountCharge,
  AccountLookup,
  AccountPatch,
  AccountsRepository,
  AccountWrite,
  AccountWrites,
  KeyUse,
  ListQuery,
  OrderColumn,
} from '../../src/domain/ports/accounts.js';
import type { AccountRow, Tables } from './tables.js';
import { draw } from './tables.js';

function toRecord(row: AccountRow): AccountRecord {
  const { nameKey: _n, emailKey: _e, deletedAt: _d, softAlertMonth: _s, nameScope: _scope, ...record } = row;
  return structuredClone(record);
}

function matches(row: AccountRow, where: AccountLookup): boolean {
  switch (where.by) {
    case 'id':
      return row.id === where.id;
    case 'name':
      return row.nameScope === where.scope && row.nameKey === where.nameKey;
    case 'email':
      return row.nameScope === where.scope && row.emailKey === where.emailKey;
    case 'dna':
      return row.dna === where.dna;
  }
}

const ORDER_FIELDS: Record<OrderColumn, keyof AccountRow> = {
  id: 'id',
  name: 'nameKey',
  email: 'emailKey',
  level: 'level',
  dna: 'dna',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

function compare(a: unknown, b: unknown): number {
  const left = a instanceof Date ? a.getTime() : a;
  const right = b instanceof Date ? b.getTime() : b;
  return (left as number) < (right as number) ? -1 : (left as number) > (right as number) ? 1 : 0;
}

/**
 * The account rows in memory, with the schema's rules: unique name, e-mail, key hash, DNA and
 * root; soft delete frees the unique columns; a name or e-mail clash is reported, any other
 * clash throws like a database error.
 */
export class MemoryAccounts implements AccountsRepository, AccountWrites {
  constructor(private readonly tables: () => Tables) {}

  private get rows(): Map<bigint, AccountRow> {
    return this.tables().accounts;
  }

  private liveRow(id: bigint): AccountRow | undefined {
    const row = this.rows.get(id);
    return row && row.deletedAt === null ? row : undefined;
  }

  private liveRows(): AccountRow[] {
    return [...this.rows.values()].filter((row) => row.deletedAt === null);
  }

  async findById(id: bigint) {
    const row = this.liveRow(id);
    return row && toRecord(row);
  }

  async findByKeyHash(keyHash: string) {
    const row = this.liveRows().find((candidate) => candidate.keyHash === keyHash);
    return row && toRecord(row);
  }

  async findRoot() {
    const row = [...this.rows.values()].find((candidate) => candidate.isRoot);
    return row && toRecord(row);
  }

  async findByIds(ids: readonly bigint[]) {
    return this.liveRows()
      .filter((row) => ids.includes(row.id))
      .map(toRecord);
  }

  async descendantIds(dna: string) {
    return this.liveRows()
      .filter((row) => row.dna.startsWith(dna) && row.dna !== dna)
      .map((row) => row.id);
  }

  async chargeRates(ids: readonly bigint[]) {
    return [...this.rows.values()]
      .filter((row) => ids.includes(row.id))
      .map((row) => ({ id: row.id, rates: row.rates, factor: row.factor }));
  }

  async findOne(where: AccountLookup, dnaPrefix: string) {
    const row = this.liveRows().find(
      (candidate) => matches(candidate, where) && candidate.dna.startsWith(dnaPrefix),
    );
    return row && toRecord(row);
  }

  async list(query: ListQuery) {
    const wanted = this.liveRows().filter(
      (row) =>
        row.dna.startsWith(query.scopeDna) &&
        row.dna !== query.scopeDna &&
        (query.parentId === undefined || row.parentId === query.parentId) &&
        (query.id === undefined || row.id === query.id) &&
        (query.nameContains === undefined || row.nameKey.includes(query.nameContains)) &&
        (query.emailKey === undefined || row.emailKey === query.emailKey) &&
        (query.dnaPrefix === undefined || row.dna.startsWith(query.dnaPrefix)) &&
        (['level', 'gear', 'role', 'tier', 'factor'] as const).every(
          (field) => query[field] === undefined || row[field] === query[field],
        ),
    );
    const field = ORDER_FIELDS[query.order.column];
    const sign = query.order.descending ? -1 : 1;
    wanted.sort((a, b) => sign * (compare(a[field], b[field]) || compare(a.id, b.id)));
    return {
      rows: wanted.slice(query.offset, query.offset + query.limit).map(toRecord),
      total: wanted.length,
    };
  }

  async recordKeyUses(uses: readonly KeyUse[]) {
    const changed = new Set<bigint>();
    for (const use of uses) {
      const row = this.rows.get(use.accountId);
      if (row && row.keyHash === use.keyHash) {
        if (row.keyLastUsedAt === null || row.keyLastUsedAt < use.usedAt) {
          row.keyLastUsedAt = use.usedAt;
        }
        changed.add(row.id);
      }
    }
    return changed.size;
  }

  async lock(id: bigint) {
    return this.findById(id);
  }

  async lockForDebit(ids: readonly bigint[]) {
    return [...new Set(ids)].sort(compare).flatMap((id) => {
      const row = this.rows.get(id);
      return row
        ? [{ account: toRecord(row), deleted: row.deletedAt !== null, softAlertMonth: row.softAlertMonth }]
        : [];
    });
  }

  async nameOrEmailTaken(scope: bigint, nameKey: string, emailKey: string, exceptId?: bigint) {
    const clash = [...this.rows.values()].find(
      (row) =>
        row.nameScope === scope &&
        (row.nameKey === nameKey || row.emailKey === emailKey) &&
        row.id !== exceptId,
    );
    if (!clash) {
      return undefined;
    }
    return clash.nameKey === nameKey ? ('name' as const) : ('email' as const);
  }

  async insert(
    account: NewAccount & { nameKey: string; emailKey: string },
    parentDna: string,
    at: Date,
  ): Promise<AccountWrite> {
    const id = draw(this.tables(), 'account');
    const row: AccountRow = {
      ...structuredClone(account),
      id,
      dna: childDna(parentDna, id),
      ownerId: account.ownerId ?? id,
      nameScope: nameScopeOf(account, id),
      spendBlocked: false,
      daySpendNano: 0n,
      dayStart: null,
      monthSpendNano: 0n,
      monthStart: null,
      debtNano: 0n,
      keyLastUsedAt: null,
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
      softAlertMonth: null,
    };
    const refused = this.uniqueClash(row);
    if (refused) {
      return refused;
    }
    this.rows.set(id, row);
    return { written: toRecord(row) };
  }

  async update(id: bigint, patch: AccountPatch, at: Date): Promise<AccountWrite> {
    const row = this.liveRow(id);
    if (!row) {
      return { refused: 'not_found' };
    }
    const next: AccountRow = { ...row, ...structuredClone(patch), updatedAt: at };
    const refused = this.uniqueClash(next);
    if (refused) {
      return refused;
    }
    this.rows.set(id, next);
    return { written: toRecord(next) };
  }

  async setKey(id: bigint, key: { hash: string; prefix: string; last4: string }, at: Date) {
    this.change(id, {
      keyHash: key.hash,
      keyPrefix: key.prefix,
      keyLast4: key.last4,
      updatedAt: at,
    });
  }

  async keyHashTaken(hash: string) {
    return [...this.rows.values()].some((row) => row.keyHash === hash);
  }

  async applyCharges(charges: readonly AccountCharge[], at: Date) {
    for (const { accountId, spend, addDebtNano } of charges) {
      await this.addDebt(accountId, addDebtNano);
      this.change(accountId, { ...spend, updatedAt: at });
    }
  }

  async absorbDebt(accountId: bigint, amountNano: bigint) {
    const row = this.rows.get(accountId);
    if (!row) {
      return 0n;
    }
    const absorbed = row.debtNano < amountNano ? row.debtNano : amountNano;
    row.debtNano -= absorbed;
    return absorbed;
  }

  async addDebt(accountId: bigint, amountNano: bigint) {
    const row = this.rows.get(accountId);
    if (row) {
      row.debtNano += amountNano;
    }
  }

  async liveChildren(id: bigint) {
    return this.liveRows()
      .filter((row) => row.parentId === id)
      .sort((a, b) => compare(a.id, b.id))
      .map((row) => ({ id: row.id, name: row.name }));
  }

  async markDeleted(id: bigint, at: Date) {
    const row = this.rows.get(id);
    if (row) {
      this.change(id, {
        deletedAt: at,
        status: false,
        nameKey: `deleted:${id}:${row.nameKey}`,
        emailKey: `deleted:${id}:${row.emailKey}`,
        keyHash: `deleted:${id}`,
        updatedAt: at,
      });
    }
  }

  private change(id: bigint, fields: Partial<AccountRow>): void {
    const row = this.rows.get(id);
    if (row) {
      Object.assign(row, fields);
    }
  }

  /** The unique columns of the schema: name and e-mail clashes are refusals, others errors. */
  private uniqueClash(candidate: AccountRow): AccountWrite | undefined {
    for (const row of this.rows.values()) {
      if (row.id === candidate.id) {
        continue;
      }
      if (row.nameScope === candidate.nameScope && row.nameKey === candidate.nameKey) {
        return { refused: 'name_taken' };
      }
      if (row.nameScope === candidate.nameScope && row.emailKey === candidate.emailKey) {
        return { refused: 'email_taken' };
      }
      if (
        row.keyHash === candidate.keyHash ||
        row.dna === candidate.dna ||
        (row.isRoot && candidate.isRoot)
      ) {
        throw new Error(`duplicate key value violates a unique constraint of account ${row.id}`);
      }
    }
    return undefined;
  }
}
