import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGrpcClient, type PromiseClient } from '@gw/kit';
import { accounts } from '@gw/proto';
import {
  createTestDatabase,
  freePort,
  startGateway,
  startProcess,
  startService,
  waitFor,
  type Gateway,
  type RunningProcess,
  type StartedService,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll } from 'vitest';

export const NANO = 1_000_000_000n;
export const cents = (n: number) => BigInt(n) * 10_000_000n;

export interface MoneyGateway {
  gw: Gateway;
  database: TestDatabase;
  /** accounts' gRPC API, as the usage consumer reaches it for Debit. */
  client: PromiseClient<accounts.AccountsServiceClient>;
  /** Runs redis-cli against the gateway's private Redis, where the mail jobs are queued. */
  redisCli: (...args: string[]) => string;
}

/**
 * Starts a private redis-server and a gateway on it for the calling test file (in `beforeAll`,
 * stopped in `afterAll`) and answers the handle its tests use; `gw`, `database` and `client` are
 * set once it started.
 */
export function useMoneyGateway(): MoneyGateway {
  let redis: RunningProcess | undefined;
  let redisPort: number;
  let redisDir: string | undefined;
  const money = {
    redisCli: (...args: string[]) =>
      execFileSync('redis-cli', ['-p', String(redisPort), ...args], { encoding: 'utf8' }).trim(),
  } as MoneyGateway;

  beforeAll(async () => {
    redisPort = await freePort();
    redisDir = mkdtempSync(join(tmpdir(), 'gw-redis-'));
    const started = startProcess(
      'redis',
      'redis-server',
      [
        '--port',
        String(redisPort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        redisDir,
      ],
      {
        cwd: redisDir,
        env: {},
      },
    );
    redis = started;
    await waitFor(
      async () => started.output().includes('Ready to accept connections'),
      'redis-server',
      10_000,
    );
    money.database = await createTestDatabase();
    money.gw = await startGateway({
      databaseUrl: money.database.url,
      env: { REDIS_URL: `redis://127.0.0.1:${redisPort}` },
    });
    money.client = createGrpcClient(
      accounts.AccountsServiceClient,
      money.gw.env.ACCOUNTS_ADDR ?? '',
      money.gw.env.GW_INTERNAL_TOKEN ?? '',
      10_000,
    );
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    (money.client as MoneyGateway['client'] | undefined)?.close();
    await (money.gw as Gateway | undefined)?.stop();
    await (money.database as TestDatabase | undefined)?.drop();
    await redis?.stop();
    if (redisDir) {
      rmSync(redisDir, { recursive: true, force: true });
    }
  });

  return money;
}

export interface MoneyService {
  /** accounts alone, on `database`: its client is the one the usage consumer reaches for Debit. */
  service: StartedService<'accounts'>;
  database: TestDatabase;
  /** Runs redis-cli against the machine's Redis, where the service queues mail jobs under its own prefix. */
  redisCli: (...args: string[]) => string;
}

/**
 * Starts accounts alone on a database of the test's for the calling test file (in `beforeAll`,
 * stopped in `afterAll`), for the tests that charge through its gRPC API and read its tables;
 * `service` and `database` are set once it started.
 */
export function useMoneyService(): MoneyService {
  const money = {
    redisCli: (...args: string[]) => execFileSync('redis-cli', args, { encoding: 'utf8' }).trim(),
  } as MoneyService;

  beforeAll(async () => {
    money.database = await createTestDatabase();
    money.service = await startService('accounts', { databaseUrl: money.database.url, deadlineMs: 10_000 });
  });

  afterAll(async () => {
    // beforeAll may have failed before assigning them.
    await (money.service as StartedService<'accounts'> | undefined)?.stop();
    await (money.database as TestDatabase | undefined)?.drop();
  });

  return money;
}
