import { AppError, ErrorCode, type Database } from '@gw/kit';
import { and, asc, count, desc, eq, gt, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import { childDna } from '../domain/dna.js';
import type { AccountRecord, CreditLot } from '../domain/model.js';
import type {
  AccountLookup,
  AccountPatch,
  AccountsStore,
  AccountsTx,
  ConservationRow,
  DebitTarget,
  KeyUse,
  LedgerKind,
  LedgerRow,
  ListQuery,
  OperationQuery,
  OperationRecord,
  SpendUpdate,
} from '../domain/ports.js';
import { accounts, creditLots, idempotencyKeys, ledger, operationLog } from './schema.js';

type Row = typeof accounts.$inferSelect;
type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'execute'>;

function toRecord(row: Row): AccountRecord {
  const {
    nameKey: _nameKey,
    emailKey: _emailKey,
    dayStart: _day,
    monthStart: _month,
    deletedAt: _deleted,
    softAlertMonth: _alert,
    ...record
  } = row;
  // Spend of a past day or month reads as zero (Debit starts the new period from zero too).
  const today = new Date().toISOString().slice(0, 10);
  return {
    ...record,
    daySpendNano: row.dayStart === today ? row.daySpendNano : 0n,
    monthSpendNano: row.monthStart === `${today.slice(0, 7)}-01` ? row.monthSpendNano : 0n,
  };
}

const live = isNull(accounts.deletedAt);

/** LIKE pattern text matched literally: backslash is PostgreSQL's default LIKE escape. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function lotsOf(db: Executor, accountId: bigint, now: Date) {
  return db
    .select()
    .from(creditLots)
    .where(
      and(
        eq(creditLots.accountId, accountId),
        gt(creditLots.remainingNano, 0n),
        gt(creditLots.expiresAt, now),
      ),
    )
    .orderBy(asc(creditLots.expiresAt), asc(creditLots.id));
}

async function findOneIn(db: Executor, where: AccountLookup, dnaPrefix: string) {
  const [row] = await db
    .select()
    .from(accounts)
    .where(and(lookupCondition(where), live, sql`${accounts.dna} LIKE ${`${escapeLike(dnaPrefix)}%`}`));
  return row ? toRecord(row) : undefined;
}

const ORDER_COLUMNS = {
  id: accounts.id,
  name: accounts.nameKey,
  email: accounts.emailKey,
  level: accounts.level,
  dna: accounts.dna,
  created_at: accounts.createdAt,
  updated_at: accounts.updatedAt,
} as const;

function toLot(row: typeof creditLots.$inferSelect): CreditLot {
  return { id: row.id, accountId: row.accountId, remainingNano: row.remainingNano, expiresAt: row.expiresAt };
}

function lookupCondition(where: AccountLookup) {
  switch (where.by) {
    case 'id':
      return eq(accounts.id, where.id);
    case 'name':
      return eq(accounts.nameKey, where.nameKey);
    case 'email':
      return eq(accounts.emailKey, where.emailKey);
    case 'dna':
      return eq(accounts.dna, where.dna);
  }
}

/** Postgres unique violations on name or e-mail become the domain's "taken" error. */
function translateUniqueViolation(error: unknown): never {
  const code =
    (error as { code?: string; cause?: { code?: string } }).code ??
    (error as { cause?: { code?: string } }).cause?.code;
  const text = String((error as { cause?: unknown }).cause ?? error);
  if (code === '23505' && /name_key|email_key/.test(text)) {
    throw new AppError(
      ErrorCode.InvalidRequest,
      text.includes('name_key') ? 'Name is already taken' : 'Email is already registered',
    );
  }
  throw error;
}

class Tx implements AccountsTx {
  constructor(private readonly db: Executor) {}

  async lockAccount(id: bigint) {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(and(eq(accounts.id, id), live))
      .for('update');
    return row ? toRecord(row) : undefined;
  }

  async lockForDebit(id: bigint): Promise<DebitTarget | undefined> {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.id, id)).for('update');
    if (!row) {
      return undefined;
    }
    return {
      account: toRecord(row),
      deleted: row.deletedAt !== null,
      dayStart: row.dayStart,
      monthStart: row.monthStart,
      softAlertMonth: row.softAlertMonth,
    };
  }

  async setSpend(id: bigint, spend: SpendUpdate) {
    await this.db
      .update(accounts)
      .set({ ...spend, updatedAt: sql`now()` })
      .where(eq(accounts.id, id));
  }

  async absorbDebt(accountId: bigint, amountNano: bigint) {
    const result = await this.db.execute(sql`
      UPDATE accounts.accounts AS a SET debt_nano = a.debt_nano - LEAST(a.debt_nano, ${amountNano}::bigint)
      FROM (SELECT id, debt_nano FROM accounts.accounts WHERE id = ${accountId} FOR UPDATE) AS old
      WHERE a.id = old.id
      RETURNING LEAST(old.debt_nano, ${amountNano}::bigint)::text AS absorbed`);
    const [row] = (result as { rows: Array<{ absorbed: string } | undefined> }).rows;
    return BigInt(row?.absorbed ?? '0');
  }

  async addDebt(accountId: bigint, amountNano: bigint) {
    await this.db
      .update(accounts)
      .set({ debtNano: sql`${accounts.debtNano} + ${amountNano}` })
      .where(eq(accounts.id, accountId));
  }

  findOne(where: AccountLookup, dnaPrefix: string) {
    return findOneIn(this.db, where, dnaPrefix);
  }

  async liveLots(accountId: bigint, now: Date) {
    return (await lotsOf(this.db, accountId, now)).map(toLot);
  }

  async updateAccount(id: bigint, patch: AccountPatch) {
    try {
      const [row] = await this.db
        .update(accounts)
        .set({ ...patch, updatedAt: sql`now()` })
        .where(and(eq(accounts.id, id), live))
        .returning();
      if (!row) {
        throw new AppError(ErrorCode.NotFound, 'no such account');
      }
      return toRecord(row);
    } catch (error) {
      return translateUniqueViolation(error);
    }
  }

  async liveChildren(id: bigint) {
    return this.db
      .select({ id: accounts.id, name: accounts.name })
      .from(accounts)
      .where(and(eq(accounts.parentId, id), live))
      .orderBy(asc(accounts.id));
  }

  async markDeleted(id: bigint) {
    // Unique columns get a per-row prefix so the name, e-mail and key are free again.
    await this.db
      .update(accounts)
      .set({
        deletedAt: sql`now()`,
        status: false,
        nameKey: sql`'deleted:' || ${accounts.id} || ':' || ${accounts.nameKey}`,
        emailKey: sql`'deleted:' || ${accounts.id} || ':' || ${accounts.emailKey}`,
        keyHash: sql`'deleted:' || ${accounts.id}`,
        updatedAt: sql`now()`,
      })
      .where(eq(accounts.id, id));
  }

  async findLedger(idempotencyKey: string, kind: LedgerKind) {
    const [row] = await this.db
      .select({ id: ledger.id, accountId: ledger.accountId, amountNano: ledger.amountNano })
      .from(ledger)
      .where(and(eq(ledger.idempotencyKey, idempotencyKey), eq(ledger.kind, kind)))
      .orderBy(asc(ledger.id))
      .limit(1);
    return row;
  }

  async claimIdempotencyKey(callerId: bigint, key: string, requestHash: string, operation: string) {
    const claimed = await this.db
      .insert(idempotencyKeys)
      .values({ callerId, key, requestHash, operation, response: '', createdAt: sql`now()` })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (claimed.length === 1) {
      return undefined;
    }
    const [stored] = await this.db
      .select({
        requestHash: idempotencyKeys.requestHash,
        operation: idempotencyKeys.operation,
        response: idempotencyKeys.response,
      })
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.key, key)));
    if (!stored) {
      throw new Error('idempotency key claimed but not readable');
    }
    return stored;
  }

  async saveIdempotencyResponse(callerId: bigint, key: string, response: string) {
    await this.db
      .update(idempotencyKeys)
      .set({ response })
      .where(and(eq(idempotencyKeys.callerId, callerId), eq(idempotencyKeys.key, key)));
  }

  async nameOrEmailTaken(nameKey: string, emailKey: string, exceptId?: bigint) {
    const rows = await this.db
      .select({ nameKey: accounts.nameKey, id: accounts.id })
      .from(accounts)
      .where(or(eq(accounts.nameKey, nameKey), eq(accounts.emailKey, emailKey)));
    const clash = rows.find((row) => row.id !== exceptId);
    if (!clash) {
      return undefined;
    }
    return clash.nameKey === nameKey ? ('name' as const) : ('email' as const);
  }

  async insertAccount(account: Parameters<AccountsTx['insertAccount']>[0], parentDna: string) {
    try {
      // The DNA needs the new id, so the id is drawn from the sequence first.
      const drawn = await this.db.execute(
        sql`SELECT nextval(pg_get_serial_sequence('accounts.accounts', 'id'))::text AS id`,
      );
      const [drawnRow] = (drawn as { rows: Array<{ id: string } | undefined> }).rows;
      const id = BigInt(drawnRow?.id ?? '0');
      const [row] = await this.db
        .insert(accounts)
        .values({
          ...account,
          id,
          dna: childDna(parentDna, id),
          ownerId: account.ownerId ?? id,
          spendBlocked: false,
          daySpendNano: 0n,
          monthSpendNano: 0n,
          debtNano: 0n,
          createdAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .returning();
      if (!row) {
        throw new Error('insert returned no row');
      }
      return toRecord(row);
    } catch (error) {
      return translateUniqueViolation(error);
    }
  }

  async setKey(id: bigint, key: { hash: string; prefix: string; last4: string }) {
    await this.db
      .update(accounts)
      .set({ keyHash: key.hash, keyPrefix: key.prefix, keyLast4: key.last4, updatedAt: sql`now()` })
      .where(eq(accounts.id, id));
  }

  async keyHashTaken(hash: string) {
    const rows = await this.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.keyHash, hash));
    return rows.length > 0;
  }

  async insertLedger(row: LedgerRow) {
    const [inserted] = await this.db
      .insert(ledger)
      .values({ ...row, createdAt: sql`now()` })
      .onConflictDoNothing()
      .returning({ id: ledger.id });
    return inserted?.id;
  }

  async lockSpendableLots(accountId: bigint, now: Date) {
    const rows = await lotsOf(this.db, accountId, now).for('update');
    return rows.map(toLot);
  }

  async takeFromLot(lotId: bigint, amountNano: bigint) {
    const rows = await this.db
      .update(creditLots)
      .set({ remainingNano: sql`${creditLots.remainingNano} - ${amountNano}` })
      .where(and(eq(creditLots.id, lotId), sql`${creditLots.remainingNano} >= ${amountNano}`))
      .returning({ id: creditLots.id });
    return rows.length === 1;
  }

  async insertLot(lot: { accountId: bigint; amountNano: bigint; expiresAt: Date; ledgerId: bigint }) {
    await this.db.insert(creditLots).values({
      accountId: lot.accountId,
      grantedNano: lot.amountNano,
      remainingNano: lot.amountNano,
      expiresAt: lot.expiresAt,
      ledgerId: lot.ledgerId,
      createdAt: sql`now()`,
    });
  }
}

/** The AccountsStore port over drizzle (PostgreSQL or PGlite). */
export class DrizzleAccountsStore implements AccountsStore {
  constructor(private readonly db: Database) {}

  transaction<T>(work: (tx: AccountsTx) => Promise<T>): Promise<T> {
    return this.db.transaction((tx) => work(new Tx(tx)));
  }

  async findByKeyHash(keyHash: string) {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(and(eq(accounts.keyHash, keyHash), live));
    return row ? toRecord(row) : undefined;
  }

  async findById(id: bigint) {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(and(eq(accounts.id, id), live));
    return row ? toRecord(row) : undefined;
  }

  async findRoot() {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.isRoot, true));
    return row ? toRecord(row) : undefined;
  }

  findOne(where: AccountLookup, dnaPrefix: string) {
    return findOneIn(this.db, where, dnaPrefix);
  }

  async recordKeyUses(uses: readonly KeyUse[]) {
    if (uses.length === 0) {
      return 0;
    }
    // One statement for the whole batch; a use of a key that was rotated meanwhile is ignored,
    // and an older timestamp never moves the column back.
    const result: unknown = await this.db.execute(sql`
      UPDATE accounts.accounts AS a
         SET key_last_used_at = GREATEST(COALESCE(a.key_last_used_at, u.used_at), u.used_at)
        FROM unnest(${sql.param(uses.map((use) => String(use.accountId)))}::bigint[],
                    ${sql.param(uses.map((use) => use.keyHash))}::text[],
                    ${sql.param(uses.map((use) => use.usedAt.toISOString()))}::timestamptz[]) AS u(id, key_hash, used_at)
       WHERE a.id = u.id AND a.key_hash = u.key_hash`);
    // node-postgres reports rowCount, PGlite affectedRows.
    const { rowCount, affectedRows } = result as { rowCount?: number | null; affectedRows?: number };
    return rowCount ?? affectedRows ?? 0;
  }

  async liveLots(accountId: bigint, now: Date) {
    return (await lotsOf(this.db, accountId, now)).map(toLot);
  }

  async liveLotsFor(accountIds: readonly bigint[], now: Date) {
    if (accountIds.length === 0) {
      return [];
    }
    const rows = await this.db
      .select()
      .from(creditLots)
      .where(
        and(
          inArray(creditLots.accountId, [...accountIds]),
          gt(creditLots.remainingNano, 0n),
          gt(creditLots.expiresAt, now),
        ),
      )
      .orderBy(asc(creditLots.expiresAt), asc(creditLots.id));
    return rows.map(toLot);
  }

  async listAccounts(query: ListQuery) {
    // Scope first: the caller's DNA with its trailing dot, so `.1.2.` never matches `.1.23.`.
    const conditions: SQL[] = [
      live,
      sql`${accounts.dna} LIKE ${`${escapeLike(query.scopeDna)}%`}`,
      ne(accounts.dna, query.scopeDna),
    ];
    if (query.parentId !== undefined) {
      conditions.push(eq(accounts.parentId, query.parentId));
    }
    if (query.id !== undefined) {
      conditions.push(eq(accounts.id, query.id));
    }
    if (query.nameContains !== undefined) {
      conditions.push(sql`${accounts.nameKey} LIKE ${`%${escapeLike(query.nameContains)}%`}`);
    }
    if (query.emailKey !== undefined) {
      conditions.push(eq(accounts.emailKey, query.emailKey));
    }
    if (query.dnaPrefix !== undefined) {
      conditions.push(sql`${accounts.dna} LIKE ${`${escapeLike(query.dnaPrefix)}%`}`);
    }
    for (const field of ['level', 'gear', 'role', 'tier'] as const) {
      const value = query[field];
      if (value !== undefined) {
        conditions.push(eq(accounts[field], value));
      }
    }
    if (query.factor !== undefined) {
      conditions.push(sql`${accounts.factor} = ${query.factor}::numeric`);
    }
    const where = and(...conditions);
    const column = ORDER_COLUMNS[query.order.column];
    const direction = query.order.descending ? desc : asc;
    const rows = await this.db
      .select()
      .from(accounts)
      .where(where)
      .orderBy(direction(column), direction(accounts.id))
      .limit(query.limit)
      .offset(query.offset);
    const [counted] = await this.db.select({ n: count() }).from(accounts).where(where);
    return { rows: rows.map(toRecord), total: counted?.n ?? 0 };
  }

  async insertOperation(entry: OperationRecord) {
    const rows = await this.db
      .insert(operationLog)
      .values(entry)
      .onConflictDoNothing()
      .returning({ id: operationLog.id });
    return rows.length === 1;
  }

  async listOperations(query: OperationQuery) {
    const conditions: SQL[] = [];
    const mine = or(eq(operationLog.operatorId, query.accountId), eq(operationLog.targetId, query.accountId));
    if (mine) {
      conditions.push(mine);
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

  async conservationTotals(now: Date) {
    const result = await this.db.execute(sql`
      SELECT o.owner_id::text AS owner_id,
             COALESCE(m.minted, 0)::text AS minted, COALESCE(m.transfers, 0)::text AS transfers,
             COALESCE(m.usage, 0)::text AS usage, COALESCE(m.fees, 0)::text AS fees,
             COALESCE(c.live, 0)::text AS live, COALESCE(c.expired, 0)::text AS expired, o.debt::text AS debt
      FROM (SELECT owner_id, SUM(debt_nano) AS debt FROM accounts.accounts GROUP BY owner_id) o
      LEFT JOIN (
        SELECT a.owner_id,
               SUM(CASE WHEN g.kind = 'mint' THEN g.amount_nano ELSE 0 END) AS minted,
               SUM(CASE WHEN g.kind IN ('grant', 'clawback', 'refund') THEN g.amount_nano ELSE 0 END) AS transfers,
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
    const rows = (result as { rows: Array<Record<string, string>> }).rows;
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
