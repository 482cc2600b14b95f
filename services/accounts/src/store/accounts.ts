import { bigintText, column, rowsChanged, rowsOf } from '@gw/kit';
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import { z } from 'zod';
import { childDna } from '../domain/dna.js';
import { nameScopeOf } from '../domain/tenancy.js';
import type { NewAccount } from '../domain/model.js';
import type {
  AccountCharge,
  AccountLookup,
  AccountPatch,
  AccountsRepository,
  AccountWrite,
  AccountWrites,
  DebitTarget,
  KeyUse,
  ListQuery,
} from '../domain/ports/accounts.js';
import { queryAccountPage } from './account-list.js';
import { escapeLike, live, lookupCondition, takenBy, toRecord } from './account-rows.js';
import type { Executor } from './executor.js';
import { accounts } from './schema.js';

/** The id drawn from the accounts sequence. */
const DrawnIdRow = z.object({ id: bigintText });

/** How much of the debt absorbDebt lowered (no row: no such account). */
const AbsorbedRow = z.object({ absorbed: bigintText });

/** The account rows over drizzle, on the database or inside one transaction. */
export class DrizzleAccounts implements AccountsRepository, AccountWrites {
  constructor(private readonly db: Executor) {}

  async findById(id: bigint) {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(and(eq(accounts.id, id), live));
    return row ? toRecord(row) : undefined;
  }

  async findByKeyHash(keyHash: string) {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(and(eq(accounts.keyHash, keyHash), live));
    return row ? toRecord(row) : undefined;
  }

  async findRoot() {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.isRoot, true));
    return row ? toRecord(row) : undefined;
  }

  async findByIds(ids: readonly bigint[]) {
    if (ids.length === 0) {
      return [];
    }
    const rows = await this.db
      .select()
      .from(accounts)
      .where(and(inArray(accounts.id, [...ids]), live));
    return rows.map(toRecord);
  }

  async descendantIds(dna: string) {
    const rows = await this.db
      .select({ id: accounts.id })
      .from(accounts)
      .where(and(sql`${accounts.dna} LIKE ${`${escapeLike(dna)}%`}`, sql`${accounts.dna} <> ${dna}`, live));
    return rows.map((row) => row.id);
  }

  async chargeRates(ids: readonly bigint[]) {
    if (ids.length === 0) {
      return [];
    }
    return this.db
      .select({ id: accounts.id, rates: accounts.rates, factor: accounts.factor })
      .from(accounts)
      .where(inArray(accounts.id, [...ids]));
  }

  async findOne(where: AccountLookup, dnaPrefix: string) {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(and(lookupCondition(where), live, sql`${accounts.dna} LIKE ${`${escapeLike(dnaPrefix)}%`}`));
    return row ? toRecord(row) : undefined;
  }

  list(query: ListQuery) {
    return queryAccountPage(this.db, query);
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
        FROM unnest(${column(uses, (use) => String(use.accountId))}::bigint[],
                    ${column(uses, (use) => use.keyHash)}::text[],
                    ${column(uses, (use) => use.usedAt.toISOString())}::timestamptz[]) AS u(id, key_hash, used_at)
       WHERE a.id = u.id AND a.key_hash = u.key_hash`);
    return rowsChanged(result);
  }

  // Account rows are locked FOR NO KEY UPDATE: it serialises writers of one account as FOR UPDATE
  // does, but not against the KEY SHARE lock a foreign key to the row takes (an Idempotency-Key
  // claimed for the caller, a child inserted under it). With FOR UPDATE two writers that each held
  // such a share and then asked for the row deadlocked.
  async lock(id: bigint) {
    const [row] = await this.db
      .select()
      .from(accounts)
      .where(and(eq(accounts.id, id), live))
      .for('no key update');
    return row ? toRecord(row) : undefined;
  }

  async lockForDebit(ids: readonly bigint[]): Promise<DebitTarget[]> {
    if (ids.length === 0) {
      return [];
    }
    const rows = await this.db
      .select()
      .from(accounts)
      .where(sql`${accounts.id} = ANY(${column(ids, String)}::bigint[])`)
      .orderBy(asc(accounts.id))
      .for('no key update');
    return rows.map((row) => ({
      account: toRecord(row),
      deleted: row.deletedAt !== null,
      softAlertMonth: row.softAlertMonth,
    }));
  }

  async nameOrEmailTaken(scope: bigint, nameKey: string, emailKey: string, exceptId?: bigint) {
    const rows = await this.db
      .select({ nameKey: accounts.nameKey, id: accounts.id })
      .from(accounts)
      .where(
        and(
          eq(accounts.nameScope, scope),
          or(eq(accounts.nameKey, nameKey), eq(accounts.emailKey, emailKey)),
        ),
      );
    const clash = rows.find((row) => row.id !== exceptId);
    if (!clash) {
      return undefined;
    }
    return clash.nameKey === nameKey ? ('name' as const) : ('email' as const);
  }

  async insert(account: NewAccount & { nameKey: string; emailKey: string }, parentDna: string, at: Date) {
    try {
      // The DNA needs the new id, so the id is drawn from the sequence first.
      const drawn = await this.db.execute(
        sql`SELECT nextval(pg_get_serial_sequence('accounts.accounts', 'id'))::text AS id`,
      );
      const [drawnRow] = rowsOf(drawn, DrawnIdRow);
      if (!drawnRow) {
        throw new Error('the accounts sequence drew no id');
      }
      const { id } = drawnRow;
      const [row] = await this.db
        .insert(accounts)
        .values({
          ...account,
          id,
          dna: childDna(parentDna, id),
          ownerId: account.ownerId ?? id,
          nameScope: nameScopeOf(account, id),
          spendBlocked: false,
          daySpendNano: 0n,
          monthSpendNano: 0n,
          debtNano: 0n,
          createdAt: at,
          updatedAt: at,
        })
        .returning();
      if (!row) {
        throw new Error('insert returned no row');
      }
      return { written: toRecord(row) };
    } catch (error) {
      return refusedOrRethrow(error);
    }
  }

  async update(id: bigint, patch: AccountPatch, at: Date): Promise<AccountWrite> {
    try {
      const [row] = await this.db
        .update(accounts)
        .set({ ...patch, updatedAt: at })
        .where(and(eq(accounts.id, id), live))
        .returning();
      return row ? { written: toRecord(row) } : { refused: 'not_found' };
    } catch (error) {
      return refusedOrRethrow(error);
    }
  }

  async setKey(id: bigint, key: { hash: string; prefix: string; last4: string }, at: Date) {
    await this.db
      .update(accounts)
      .set({ keyHash: key.hash, keyPrefix: key.prefix, keyLast4: key.last4, updatedAt: at })
      .where(eq(accounts.id, id));
  }

  async keyHashTaken(hash: string) {
    const rows = await this.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.keyHash, hash));
    return rows.length > 0;
  }

  async applyCharges(charges: readonly AccountCharge[], at: Date) {
    if (charges.length === 0) {
      return;
    }
    const of = (pick: (charge: AccountCharge) => string | boolean | null) => column(charges, pick);
    await this.db.execute(sql`
      UPDATE accounts.accounts AS a
         SET debt_nano = a.debt_nano + c.add_debt_nano,
             day_spend_nano = c.day_spend_nano, day_start = c.day_start,
             month_spend_nano = c.month_spend_nano, month_start = c.month_start,
             spend_blocked = c.spend_blocked, soft_alert_month = c.soft_alert_month,
             updated_at = ${at}
        FROM unnest(${of((c) => String(c.accountId))}::bigint[],
                    ${of((c) => String(c.addDebtNano))}::bigint[],
                    ${of((c) => String(c.spend.daySpendNano))}::bigint[],
                    ${of((c) => c.spend.dayStart)}::date[],
                    ${of((c) => String(c.spend.monthSpendNano))}::bigint[],
                    ${of((c) => c.spend.monthStart)}::date[],
                    ${of((c) => c.spend.spendBlocked)}::boolean[],
                    ${of((c) => c.spend.softAlertMonth)}::date[])
             AS c(id, add_debt_nano, day_spend_nano, day_start, month_spend_nano, month_start,
                  spend_blocked, soft_alert_month)
       WHERE a.id = c.id`);
  }

  async absorbDebt(accountId: bigint, amountNano: bigint) {
    const result = await this.db.execute(sql`
      UPDATE accounts.accounts AS a SET debt_nano = a.debt_nano - LEAST(a.debt_nano, ${amountNano}::bigint)
      FROM (SELECT id, debt_nano FROM accounts.accounts WHERE id = ${accountId} FOR NO KEY UPDATE) AS old
      WHERE a.id = old.id
      RETURNING LEAST(old.debt_nano, ${amountNano}::bigint)::text AS absorbed`);
    const [row] = rowsOf(result, AbsorbedRow);
    return row?.absorbed ?? 0n;
  }

  async addDebt(accountId: bigint, amountNano: bigint) {
    await this.db
      .update(accounts)
      .set({ debtNano: sql`${accounts.debtNano} + ${amountNano}` })
      .where(eq(accounts.id, accountId));
  }

  async liveChildren(id: bigint) {
    return this.db
      .select({ id: accounts.id, name: accounts.name })
      .from(accounts)
      .where(and(eq(accounts.parentId, id), live))
      .orderBy(asc(accounts.id));
  }

  async markDeleted(id: bigint, at: Date) {
    // Unique columns get a per-row prefix so the name, e-mail and key are free again.
    await this.db
      .update(accounts)
      .set({
        deletedAt: at,
        status: false,
        nameKey: sql`'deleted:' || ${accounts.id} || ':' || ${accounts.nameKey}`,
        emailKey: sql`'deleted:' || ${accounts.id} || ':' || ${accounts.emailKey}`,
        keyHash: sql`'deleted:' || ${accounts.id}`,
        updatedAt: at,
      })
      .where(eq(accounts.id, id));
  }
}

function refusedOrRethrow(error: unknown): AccountWrite {
  const refused = takenBy(error);
  if (!refused) {
    throw error;
  }
  return refused;
}
