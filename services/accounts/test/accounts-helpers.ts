import { fileURLToPath } from 'node:url';
import { createLogger, openDatabase, type DatabaseHandle } from '@gw/kit';
import type { Gateway, TestDatabase } from '@gw/testkit';

export interface ListBody {
  success: boolean;
  users: Array<{ ID: number; Name: string; DNA: string; Balance: number; Level: number; Email: string }>;
  total: number;
  page: number;
  size: number;
}

export async function list(
  gw: Gateway,
  path: string,
  key?: string,
): Promise<{ response: Response; body: ListBody }> {
  const response = await gw.request(path, { key: key ?? gw.rootKey });
  return { response, body: (await response.json()) as ListBody };
}

/**
 * Every row of the money tables, to prove a refused request changed nothing. Leaves out when each
 * key was last used: using a key is no change, and that column is written in batches some time
 * after the use, so on a busy machine it can land between two snapshots of the same state.
 */
export async function moneyState(database: TestDatabase): Promise<string> {
  const rows = await database.query('SELECT * FROM accounts.accounts ORDER BY id');
  const accounts = rows.map(({ key_last_used_at: _lastUsed, ...row }) => row);
  const ledger = await database.query('SELECT * FROM accounts.ledger ORDER BY id');
  const lots = await database.query('SELECT * FROM accounts.credit_lots ORDER BY id');
  return JSON.stringify({ accounts, ledger, lots });
}

export interface Conservation {
  minted: bigint;
  liveLots: bigint;
  expired: bigint;
  debt: bigint;
  usage: bigint;
  fees: bigint;
  /** minted − (balances + usage + fees + expired); 0 when no nano is created or lost. */
  difference: bigint;
  /** Σ of the two-legged movements (grant, clawback, refund): 0 in double entry. */
  transfersNet: bigint;
}

/**
 * The conservation invariant at quiescence, exact in nano-USD: credit minted = balances
 * (unexpired lot remainders − post-paid debt) + usage charged + fees + expired remainders.
 */
export async function conservation(database: TestDatabase): Promise<Conservation> {
  const [row] = await database.query<Record<string, string>>(`
    SELECT
      (SELECT COALESCE(SUM(amount_nano), 0) FROM accounts.ledger WHERE kind = 'mint')::text AS minted,
      (SELECT COALESCE(SUM(remaining_nano), 0) FROM accounts.credit_lots WHERE expires_at > now())::text AS live_lots,
      (SELECT COALESCE(SUM(remaining_nano), 0) FROM accounts.credit_lots WHERE expires_at <= now())::text AS expired,
      (SELECT COALESCE(SUM(debt_nano), 0) FROM accounts.accounts)::text AS debt,
      (SELECT COALESCE(-SUM(amount_nano), 0) FROM accounts.ledger WHERE kind = 'usage')::text AS usage,
      (SELECT COALESCE(-SUM(amount_nano), 0) FROM accounts.ledger WHERE kind = 'fee')::text AS fees,
      (SELECT COALESCE(SUM(amount_nano), 0) FROM accounts.ledger WHERE kind IN ('grant', 'clawback', 'refund'))::text AS transfers_net`);
  if (!row) {
    throw new Error('no conservation row');
  }
  const minted = BigInt(row.minted ?? '0');
  const liveLots = BigInt(row.live_lots ?? '0');
  const expired = BigInt(row.expired ?? '0');
  const debt = BigInt(row.debt ?? '0');
  const usage = BigInt(row.usage ?? '0');
  const fees = BigInt(row.fees ?? '0');
  return {
    minted,
    liveLots,
    expired,
    debt,
    usage,
    fees,
    difference: minted - (liveLots - debt + usage + fees + expired),
    transfersNet: BigInt(row.transfers_net ?? '0'),
  };
}

/** Balance of one account straight from the tables (lots − debt), in nano-USD. */
export async function balanceNano(database: TestDatabase, id: number): Promise<bigint> {
  const [row] = await database.query<{ b: string }>(
    `SELECT ((SELECT COALESCE(SUM(remaining_nano), 0) FROM accounts.credit_lots WHERE account_id = $1 AND expires_at > now())
       - (SELECT debt_nano FROM accounts.accounts WHERE id = $1))::text AS b`,
    [id],
  );
  return BigInt(row?.b ?? '0');
}

/** The accounts schema, migrated, on a test database: for tests that drive the domain and store directly. */
export function openAccountsDatabase(database: TestDatabase): Promise<DatabaseHandle> {
  return openDatabase({
    url: database.url,
    schema: 'accounts',
    migrationsDir: fileURLToPath(new URL('../migrations', import.meta.url)),
    log: createLogger('accounts-test', 'silent'),
  });
}
