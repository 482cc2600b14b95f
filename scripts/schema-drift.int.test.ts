import { fileURLToPath } from 'node:url';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../packages/kit/src/log.js';
import { openDatabase, type DatabaseHandle } from '../packages/kit/src/db.js';
import { createTestDatabase, type TestDatabase } from '../packages/testkit/src/index.js';
import * as accounts from '../services/accounts/src/store/schema.js';
import * as config from '../services/config/src/store/schema.js';
import * as keypool from '../services/keypool/src/store/schema.js';
import * as mailer from '../services/mailer/src/store/schema.js';
import * as news from '../services/news/src/store/schema.js';

/**
 * The SQL migrations are each schema's source of truth, and each service's drizzle `schema.ts`
 * mirrors them by hand: every table it declares must match the migrated database column for
 * column (name, type, nullability), both ways, or a query drizzle builds fails only at run time.
 */
const SERVICES = { accounts, config, keypool, mailer, news } as const;

/** The type information_schema reports for a drizzle column's SQL type. */
function databaseType(sqlType: string): string {
  const types: Record<string, string> = { bigserial: 'bigint', serial: 'integer' };
  return types[sqlType] ?? sqlType;
}

function tablesOf(module: Record<string, unknown>): PgTable[] {
  return Object.values(module).filter(
    (value): value is PgTable =>
      typeof value === 'object' && value !== null && Symbol.for('drizzle:IsDrizzleTable') in value,
  );
}

describe('drizzle schemas against the migrated databases', () => {
  let database: TestDatabase;
  const handles: DatabaseHandle[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    for (const service of Object.keys(SERVICES)) {
      handles.push(
        await openDatabase({
          url: database.url,
          schema: service,
          migrationsDir: fileURLToPath(new URL(`../services/${service}/migrations`, import.meta.url)),
          log: createLogger('schema-drift', 'silent'),
          poolSize: 1,
        }),
      );
    }
  });

  afterAll(async () => {
    await Promise.all(handles.map((handle) => handle.close()));
    await database.drop();
  });

  for (const [service, module] of Object.entries(SERVICES)) {
    it(`${service}: every declared table matches its migrated columns`, async () => {
      const tables = tablesOf(module);
      expect(tables.length).toBeGreaterThan(0);
      for (const table of tables) {
        const { name, schema, columns } = getTableConfig(table);
        expect(schema, name).toBe(service);
        const migrated = await database.query<{
          column_name: string;
          data_type: string;
          is_nullable: string;
        }>(
          `SELECT column_name, data_type, is_nullable FROM information_schema.columns
            WHERE table_schema = $1 AND table_name = $2 ORDER BY column_name`,
          [schema, name],
        );
        const declared = columns
          .map((column) => ({
            column_name: column.name,
            data_type: databaseType(column.getSQLType()),
            is_nullable: column.notNull ? 'NO' : 'YES',
          }))
          .sort((a, b) => (a.column_name < b.column_name ? -1 : 1));
        expect(declared, `${schema}.${name}`).toEqual(migrated);
      }
    });
  }
});
