/**
 * Accounts lookup benchmark: 100 000+ accounts in a tree 6 levels deep (root → 10 → 100 → 1 000
 * → 10 000 → 90 000) on PostgreSQL, then the median and p99 latency of GET /x-dna filtered by
 * DNA and by name and of GET /x-users/{id}, through the real edge and accounts processes, plus
 * the query plans. Writes bench/RESULTS.md (the accounts section).
 *
 *   node --import tsx bench/accounts/run.ts [requests-per-scenario]
 */
import { createTestDatabase, startGateway } from '../../packages/testkit/src/index.js';
import { out, percentile, writeResultsSection } from '../gateway.js';

const REQUESTS = Number(process.argv[2] ?? 1000);
const FANOUT = [10, 10, 10, 10, 9];

async function main() {
  const database = await createTestDatabase();
  const gw = await startGateway({ databaseUrl: database.url, env: { LOG_LEVEL: 'error' } });
  try {
    const seedStart = Date.now();
    await database.query('CREATE TEMP TABLE IF NOT EXISTS level_ids (id bigint, dna text)');
    await database.query('INSERT INTO level_ids SELECT id, dna FROM accounts.accounts WHERE is_root');
    for (const fanout of FANOUT) {
      // One level at a time: every account of the previous level gets `fanout` children.
      await database.query(`
        CREATE TEMP TABLE next_ids AS
        SELECT nextval('accounts.accounts_id_seq') AS id, p.id AS parent_id, p.dna AS parent_dna
        FROM level_ids p, generate_series(1, ${fanout})`);
      await database.query(`
        INSERT INTO accounts.accounts (id, parent_id, owner_id, dna, name, name_key, email, email_key, alias, billing_email,
                                       key_hash, key_prefix, key_last4)
        SELECT id, parent_id, 1, parent_dna || id || '.', 'bench' || id, 'bench' || id, 'bench' || id || '@example.com',
               'bench' || id || '@example.com', 'bench' || id, 'bench' || id || '@example.com', md5(id::text) || md5('k' || id), 'sk-gw-benc', 'h' || (id % 10)
        FROM next_ids`);
      await database.query('TRUNCATE level_ids');
      await database.query("INSERT INTO level_ids SELECT id, parent_dna || id || '.' FROM next_ids");
      await database.query('DROP TABLE next_ids');
    }
    await database.query(`
      INSERT INTO accounts.ledger (idempotency_key, kind, account_id, counterparty_id, amount_nano)
      SELECT 'bench:' || id, 'mint', id, 1, 5000000000 FROM accounts.accounts WHERE NOT is_root`);
    await database.query(`
      INSERT INTO accounts.credit_lots (account_id, granted_nano, remaining_nano, expires_at, ledger_id)
      SELECT account_id, amount_nano, amount_nano, now() + interval '180 days', id FROM accounts.ledger WHERE idempotency_key LIKE 'bench:%'`);
    await database.query('ANALYZE accounts.accounts');
    await database.query('ANALYZE accounts.credit_lots');
    const [{ n } = { n: '0' }] = await database.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM accounts.accounts',
    );
    out(`seeded ${n} accounts in ${Date.now() - seedStart} ms`);

    const [level3] = await database.query<{ id: string; dna: string }>(
      "SELECT id::text, dna FROM accounts.accounts WHERE dna ~ '^(\\.\\d+){4}\\.$' ORDER BY id OFFSET 500 LIMIT 1",
    );
    const [leaf] = await database.query<{ id: string }>(
      'SELECT id::text FROM accounts.accounts ORDER BY id DESC OFFSET 1234 LIMIT 1',
    );
    if (!level3 || !leaf) {
      throw new Error('seed produced no level-3 account');
    }
    const nameNeedle = `bench${String(Number(leaf.id)).slice(0, 4)}`;
    const scenarios: Array<[string, string]> = [
      ['GET /x-dna?dna=<level-3 subtree, 100 rows>', `/x-dna?dna=${level3.dna}`],
      [`GET /x-dna?name=${nameNeedle} (partial)`, `/x-dna?name=${nameNeedle}`],
      ['GET /x-users/{id} (a leaf)', `/x-users/${leaf.id}`],
    ];
    // Timings of one path: 50 warm-up requests, then REQUESTS sequential ones.
    const measure = async (path: string) => {
      for (let i = 0; i < 50; i++) {
        await (await gw.request(path)).arrayBuffer();
      }
      const timings: number[] = [];
      let total = '';
      for (let i = 0; i < REQUESTS; i++) {
        const started = performance.now();
        const response = await gw.request(path);
        await response.arrayBuffer();
        timings.push(performance.now() - started);
        if (response.status !== 200) {
          throw new Error(`${path} answered ${response.status}`);
        }
        total = response.headers.get('x-total-count') ?? '';
      }
      timings.sort((a, b) => a - b);
      return { total, p50: percentile(timings, 50), p99: percentile(timings, 99) };
    };
    // Baseline, measured in the same run: the cheapest authenticated round trip through the same
    // processes (edge → gRPC → one primary-key read). Ratios compare across machines; ms do not.
    const baseline = await measure('/dashboard/status');
    const rows = [
      `| GET /dashboard/status (baseline) | 1 | ${baseline.p50.toFixed(2)} | ${baseline.p99.toFixed(2)} | 1.00 |`,
    ];
    out(rows[0] ?? '');
    for (const [label, path] of scenarios) {
      const result = await measure(path);
      const line = `| ${label} | ${result.total} | ${result.p50.toFixed(2)} | ${result.p99.toFixed(2)} | ${(result.p50 / baseline.p50).toFixed(2)} |`;
      rows.push(line);
      out(line);
    }

    const explain = async (sql: string, values: unknown[]) =>
      (
        await database.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${sql}`,
          values,
        )
      )
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    const scope = "dna LIKE '.1.%' AND dna <> '.1.' AND deleted_at IS NULL";
    const plans = [
      [
        'x-dna by DNA (page)',
        `SELECT * FROM accounts.accounts WHERE ${scope} AND dna LIKE $1 ORDER BY id LIMIT 100`,
        [`${level3.dna}%`],
      ],
      [
        'x-dna by DNA (count)',
        `SELECT count(*) FROM accounts.accounts WHERE ${scope} AND dna LIKE $1`,
        [`${level3.dna}%`],
      ],
      [
        'x-dna by name (page)',
        `SELECT * FROM accounts.accounts WHERE ${scope} AND name_key LIKE $1 ORDER BY id LIMIT 100`,
        [`%${nameNeedle}%`],
      ],
      [
        'x-dna by name (count)',
        `SELECT count(*) FROM accounts.accounts WHERE ${scope} AND name_key LIKE $1`,
        [`%${nameNeedle}%`],
      ],
      [
        'x-users/{id}',
        "SELECT * FROM accounts.accounts WHERE id = $1 AND deleted_at IS NULL AND dna LIKE '.%'",
        [leaf.id],
      ],
      [
        'lots of a page',
        'SELECT * FROM accounts.credit_lots WHERE account_id = ANY($1) AND remaining_nano > 0 AND expires_at > now() ORDER BY expires_at, id',
        [[leaf.id]],
      ],
    ] as const;
    const planText: string[] = [];
    for (const [label, sql, values] of plans) {
      planText.push(`#### ${label}\n\n\`\`\`\n${await explain(sql, [...values])}\n\`\`\``);
    }

    const section = [
      '## Accounts lookups (bench/accounts)',
      '',
      `${n} accounts in a tree 6 levels deep (root → 10 → 100 → 1 000 → 10 000 → 90 000), one credit lot each,`,
      `on the machine's PostgreSQL; ${REQUESTS} sequential requests per scenario through the real edge and accounts`,
      'processes with the root key (root sees every row, the widest scope), after 50 warm-up requests.',
      `Run: \`node --import tsx bench/accounts/run.ts ${REQUESTS}\` (${new Date().toISOString().slice(0, 10)}).`,
      '',
      '| scenario | rows matched | p50 ms | p99 ms | p50 / baseline p50 |',
      '|---|---|---|---|---|',
      ...rows,
      '',
      '### Query plans (the statements the accounts store issues)',
      '',
      ...planText,
      '',
    ].join('\n');
    writeResultsSection('## Accounts lookups', section);
  } finally {
    await gw.stop();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exitCode = 1;
});
