import { AppError, ErrorCode, type Database } from '@gw/kit';
import { and, asc, eq, gt, or, sql } from 'drizzle-orm';
import { childDna } from '../domain/dna.js';
import type { AccountRecord, CreditLot } from '../domain/model.js';
import type { AccountLookup, AccountsStore, AccountsTx, LedgerRow } from '../domain/ports.js';
import { accounts, creditLots, ledger } from './schema.js';

type Row = typeof accounts.$inferSelect;
type Executor = Pick<Database, 'select' | 'insert' | 'update' | 'execute'>;

function toRecord(row: Row): AccountRecord {
  const { nameKey: _nameKey, emailKey: _emailKey, keyLastUsedAt: _used, dayStart: _day, monthStart: _month, ...record } = row;
  return record;
}

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
  const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  const text = String((error as { cause?: unknown }).cause ?? error);
  if (code === '23505' && /name_key|email_key/.test(text)) {
    throw new AppError(ErrorCode.InvalidRequest, text.includes('name_key') ? 'Name is already taken' : 'Email is already registered');
  }
  throw error;
}

class Tx implements AccountsTx {
  constructor(private readonly db: Executor) {}

  async lockAccount(id: bigint) {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.id, id)).for('update');
    return row ? toRecord(row) : undefined;
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
      const drawn = await this.db.execute(sql`SELECT nextval(pg_get_serial_sequence('accounts.accounts', 'id'))::text AS id`);
      const id = BigInt((drawn as unknown as { rows: Array<{ id: string }> }).rows[0]?.id ?? '0');
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
    const rows = await this.db
      .select()
      .from(creditLots)
      .where(and(eq(creditLots.accountId, accountId), gt(creditLots.remainingNano, 0n), gt(creditLots.expiresAt, now)))
      .orderBy(asc(creditLots.expiresAt), asc(creditLots.id))
      .for('update');
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
    const [row] = await this.db.select().from(accounts).where(eq(accounts.keyHash, keyHash));
    return row ? toRecord(row) : undefined;
  }

  async findById(id: bigint) {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.id, id));
    return row ? toRecord(row) : undefined;
  }

  async findRoot() {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.isRoot, true));
    return row ? toRecord(row) : undefined;
  }

  async findOne(where: AccountLookup, dnaPrefix: string) {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(and(lookupCondition(where), sql`${accounts.dna} LIKE ${`${dnaPrefix}%`}`));
    return row ? toRecord(row) : undefined;
  }

  async liveLots(accountId: bigint, now: Date) {
    const rows = await this.db
      .select()
      .from(creditLots)
      .where(and(eq(creditLots.accountId, accountId), gt(creditLots.remainingNano, 0n), gt(creditLots.expiresAt, now)))
      .orderBy(asc(creditLots.expiresAt), asc(creditLots.id));
    return rows.map(toLot);
  }
}
