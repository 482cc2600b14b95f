import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { column, rowsOf } from '../src/raw-sql.js';

const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', max: 1 });
const db = drizzle(pool);

/** The column as PostgreSQL reads it back, element by element, as text (NULL as null). */
async function roundTrip(values: Array<string | boolean | null>, type: 'text' | 'bigint' | 'boolean') {
  const result: unknown = await db.execute(sql`
    SELECT v::text AS v FROM unnest(${column(values, (value) => value)}::${sql.raw(type)}[])
      WITH ORDINALITY AS t(v, n) ORDER BY n`);
  return rowsOf(result, z.object({ v: z.string().nullable() })).map((row) => row.v);
}

describe('column (PostgreSQL)', () => {
  afterAll(async () => {
    await pool.end();
  });

  it('passes every text as it is, and null as NULL', async () => {
    const values = [
      'plain',
      '',
      'NULL',
      'with "quotes"',
      'back\\slash \\"both\\"',
      'a,b',
      '{braces}',
      '  spaced  ',
      "it's",
      'ünïcödé 🙂',
      'line\nbreak',
      null,
    ];
    expect(await roundTrip(values, 'text')).toEqual(values);
  });

  it('passes bigints as text and booleans as booleans', async () => {
    expect(await roundTrip(['9223372036854775807', '-1', '0', null], 'bigint')).toEqual([
      '9223372036854775807',
      '-1',
      '0',
      null,
    ]);
    expect(await roundTrip([true, false, null], 'boolean')).toEqual(['true', 'false', null]);
  });

  it('passes an empty batch as an empty array', async () => {
    expect(await roundTrip([], 'text')).toEqual([]);
  });
});
