import { sql, type SQL } from 'drizzle-orm';

/**
 * One column of a batch as ONE array parameter (cast it in the statement: `${column(...)}::bigint[]`),
 * for set-based statements over `unnest(...)`: a batch binds one value per column instead of one
 * placeholder per row, so a large batch neither builds a huge statement nor hits the protocol's
 * 65 535-parameter limit. Bigints are sent as text.
 */
export function column<T>(rows: readonly T[], pick: (row: T) => string | boolean | null): SQL {
  return sql`${sql.param(rows.map(pick))}`;
}

/** The rows a raw `execute` answered (node-postgres reports them as `rows`). */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** How many rows a raw `execute` changed: node-postgres reports rowCount (other drivers affectedRows). */
export function rowsChanged(result: unknown): number {
  const { rowCount, affectedRows } = result as { rowCount?: number | null; affectedRows?: number };
  return rowCount ?? affectedRows ?? 0;
}
