import { and, asc, count, desc, eq, ne, sql, type SQL } from 'drizzle-orm';
import type { AccountRecord } from '../domain/model.js';
import type { ListQuery } from '../domain/ports/accounts.js';
import { escapeLike, live, toRecord } from './account-rows.js';
import type { Executor } from './executor.js';
import { accounts } from './schema.js';

const ORDER_COLUMNS = {
  id: accounts.id,
  name: accounts.nameKey,
  email: accounts.emailKey,
  level: accounts.level,
  dna: accounts.dna,
  created_at: accounts.createdAt,
  updated_at: accounts.updatedAt,
} as const;

/** One page of live accounts matching the query, and how many match in all. */
export async function queryAccountPage(
  db: Executor,
  query: ListQuery,
): Promise<{ rows: AccountRecord[]; total: number }> {
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
  const rows = await db
    .select()
    .from(accounts)
    .where(where)
    .orderBy(direction(column), direction(accounts.id))
    .limit(query.limit)
    .offset(query.offset);
  const [counted] = await db.select({ n: count() }).from(accounts).where(where);
  return { rows: rows.map(toRecord), total: counted?.n ?? 0 };
}
