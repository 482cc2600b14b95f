/**
 * Billing benchmark, through the real processes:
 *  1. events charged per second end to end (published → debit committed and acknowledged): a
 *     backlog of usage events for 200 accounts is published while billing is stopped, billing is
 *     started and timed until its consumer has nothing pending, on PostgreSQL and on the embedded one;
 *     same-run baseline: the same kind of events charged one `accounts.Debit` RPC at a time;
 *  2. GET /dashboard/bill for a month holding 1 000 000 usage events of one account (records
 *     and rollups seeded with SQL), median and p99; same-run baseline: GET /dashboard/status.
 * Writes the billing section of bench/RESULTS.md.
 *
 *   node --import tsx bench/billing/run.ts [events]
 */
import {
  connectNats,
  createGrpcClient,
  createLogger,
  type NatsConnection,
} from '../../packages/kit/src/index.js';
import { accounts as accountsPb } from '../../packages/proto/src/index.js';
import {
  createTestDatabase,
  createUser,
  startGateway,
  waitFor,
  type Gateway,
} from '../../packages/testkit/src/index.js';
import {
  publishUsage,
  rootIdOf,
  usageDrained,
  usageEvent,
} from '../../services/billing/test/usage-helpers.js';
import { out, percentile, writeResultsSection } from '../gateway.js';

const EVENTS = Number(process.argv[2] ?? 20_000);
const ACCOUNTS = 200;
const BILL_EVENTS = 1_000_000;
const BILL_REQUESTS = 200;

async function accountsOf(gw: Gateway): Promise<bigint[]> {
  const ids: bigint[] = [];
  // One at a time: creations under one parent queue on its row lock anyway.
  for (let n = 0; n < ACCOUNTS; n++) {
    ids.push(BigInt((await createUser(gw, { credit: 1000 })).id));
  }
  return ids;
}

/** Events/s billing charges from a backlog of `count` events published while it was stopped. */
async function chargeRate(gw: Gateway, nc: NatsConnection, ids: bigint[], count: number, tag: string) {
  const rootId = await rootIdOf(gw);
  await gw.processes.get('billing')?.stop();
  for (let start = 0; start < count; start += 1000) {
    await Promise.all(
      Array.from({ length: Math.min(1000, count - start) }, (_, k) =>
        publishUsage(
          nc,
          usageEvent({
            eventId: `evt_bench_${tag}_${start + k}`,
            accountId: ids[(start + k) % ids.length] ?? 0n,
            ownerId: rootId,
            model: 'gpt-4o-mini',
            promptTokens: 500 + ((start + k) % 1000),
            completionTokens: 200,
          }),
        ),
      ),
    );
  }
  const began = Date.now();
  await gw.restartService('billing');
  await waitFor(() => usageDrained(nc), 'the backlog charged', 600_000, 20);
  return (count / (Date.now() - began)) * 1000;
}

/** Events/s of the same charges sent one Debit RPC at a time (the same-run baseline). */
async function singleDebitRate(gw: Gateway, ids: bigint[], count: number) {
  const client = createGrpcClient(
    accountsPb.AccountsServiceClient,
    gw.env.ACCOUNTS_ADDR ?? '',
    gw.env.GW_INTERNAL_TOKEN ?? '',
  );
  const began = Date.now();
  for (let n = 0; n < count; n++) {
    await client.debit({
      accountId: ids[n % ids.length] ?? 0n,
      amountNano: 1000n,
      idempotencyKey: `evt_single_${n}`,
    });
  }
  client.close();
  return (count / (Date.now() - began)) * 1000;
}

async function throughput(databaseUrl: string | undefined, events: number) {
  const gw = await startGateway({
    ...(databaseUrl ? { databaseUrl } : { embedded: true }),
    env: { LOG_LEVEL: 'error' },
  });
  const nc = await connectNats(gw.natsUrl, 'bench', createLogger('bench'));
  try {
    const ids = await accountsOf(gw);
    const batched = await chargeRate(gw, nc, ids, events, databaseUrl ? 'pg' : 'lite');
    const single = await singleDebitRate(gw, ids, Math.min(2000, events));
    return { batched, single };
  } finally {
    await nc.close();
    await gw.stop();
  }
}

async function billLatency() {
  const database = await createTestDatabase();
  const gw = await startGateway({ databaseUrl: database.url, env: { LOG_LEVEL: 'error' } });
  try {
    const user = await createUser(gw, { credit: 100 });
    const now = new Date();
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
      .toISOString()
      .slice(0, 7);
    const seeded = Date.now();
    // 1 000 000 records spread over the month's days and 5 models, and their rollups.
    await database.query(`
      INSERT INTO billing.usage_records (event_id, account_id, owner_id, model, day, at, prompt_tokens,
             completion_tokens, cached_tokens, cost_nano, fallback_price, partial, estimated)
      SELECT 'evt_seed_' || n, ${user.id}, 1, 'model-' || (n % 5), d::date, d, 500, 200, 0, 195000, false, false, false
        FROM generate_series(1, ${BILL_EVENTS}) AS n,
             LATERAL (SELECT '${month}-01'::timestamptz + ((n % 28) || ' days')::interval AS d) AS t`);
    await database.query(`
      INSERT INTO billing.usage_rollups
      SELECT account_id, day, model, count(*), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cost_nano)
        FROM billing.usage_records GROUP BY 1, 2, 3`);
    await database.query('ANALYZE billing.usage_rollups');
    out(`seeded ${BILL_EVENTS} usage events in ${Date.now() - seeded} ms`);
    const time = async (path: string) => {
      const timings: number[] = [];
      for (let n = 0; n < BILL_REQUESTS; n++) {
        const began = performance.now();
        const response = await gw.request(path, { key: user.key });
        await response.text();
        if (response.status !== 200) {
          throw new Error(`${path} answered ${response.status}`);
        }
        timings.push(performance.now() - began);
      }
      timings.sort((a, b) => a - b);
      return { p50: percentile(timings, 50), p99: percentile(timings, 99) };
    };
    const body = (await (await gw.request(`/dashboard/bill?date=${month}`, { key: user.key })).json()) as {
      total_usage: { requests: number };
    };
    if (body.total_usage.requests !== BILL_EVENTS) {
      throw new Error(`the bill counts ${body.total_usage.requests} requests`);
    }
    return { bill: await time(`/dashboard/bill?date=${month}`), status: await time('/dashboard/status') };
  } finally {
    await gw.stop();
    await database.drop();
  }
}

async function main() {
  const database = await createTestDatabase();
  let pg;
  try {
    pg = await throughput(database.url, EVENTS);
  } finally {
    await database.drop();
  }
  out(
    `PostgreSQL: ${pg.batched.toFixed(0)} events/s batched, ${pg.single.toFixed(0)} events/s one Debit at a time`,
  );
  // The embedded PostgreSQL `npm start` runs (one for every service): should the gateway not come
  // up within the testkit's minute on a small shared machine, the section says so instead.
  const lite = await throughput(undefined, Math.min(EVENTS, 5000)).catch((error: unknown) => {
    out(`embedded PostgreSQL: ${String(error).split('\n')[0] ?? ''}`);
    return undefined;
  });
  if (lite) {
    out(
      `embedded PostgreSQL: ${lite.batched.toFixed(0)} events/s batched, ${lite.single.toFixed(0)} events/s one Debit at a time`,
    );
  }
  const latency = await billLatency();
  out(
    `bill p50 ${latency.bill.p50.toFixed(1)} ms p99 ${latency.bill.p99.toFixed(1)} ms; status p50 ${latency.status.p50.toFixed(1)} ms`,
  );

  const ms = (value: number) => `${value.toFixed(1)} ms`;
  writeResultsSection(
    '## Billing',
    [
      '## Billing',
      '',
      `\`node --import tsx bench/billing/run.ts ${EVENTS}\` on this machine (2 cores shared), every process real.`,
      '',
      `Charging: a backlog of usage events for ${ACCOUNTS} accounts published while billing was stopped, then`,
      'billing started and timed until its consumer had nothing pending or unacknowledged (each event',
      'recorded, rolled up and debited in accounts). Baseline: the same kind of charge sent one',
      '`accounts.Debit` RPC at a time.',
      '',
      '| store | events | batched events/s | one Debit at a time, events/s | ratio |',
      '| --- | --- | --- | --- | --- |',
      `| PostgreSQL | ${EVENTS} | ${pg.batched.toFixed(0)} | ${pg.single.toFixed(0)} | ${(pg.batched / pg.single).toFixed(1)}× |`,
      lite
        ? `| embedded PostgreSQL | ${Math.min(EVENTS, 5000)} | ${lite.batched.toFixed(0)} | ${lite.single.toFixed(0)} | ${(lite.batched / lite.single).toFixed(1)}× |`
        : "| embedded PostgreSQL | — | the gateway did not start within the testkit's minute on this machine | — | — |",
      '',
      `Target: 5 000 events/s on PostgreSQL.`,
      '',
      `\`GET /dashboard/bill?date=<month>\` for one account whose month holds ${BILL_EVENTS.toLocaleString('en')} usage events`,
      `(${BILL_REQUESTS} sequential requests; baseline \`GET /dashboard/status\`, the same authentication and accounts read):`,
      '',
      '| request | p50 | p99 | p50 ratio to baseline |',
      '| --- | --- | --- | --- |',
      `| /dashboard/bill | ${ms(latency.bill.p50)} | ${ms(latency.bill.p99)} | ${(latency.bill.p50 / latency.status.p50).toFixed(2)}× |`,
      `| /dashboard/status | ${ms(latency.status.p50)} | ${ms(latency.status.p99)} | 1× |`,
      '',
      'Target: the bill under 50 ms. Bills read the rollups (account × UTC day × model), so the month',
      'is 140 rows whatever the number of events.',
      '',
    ].join('\n'),
  );
}

await main();
process.exit(0);
