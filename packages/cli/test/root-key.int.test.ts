import {
  createTestDatabase,
  freePort,
  startGateway,
  waitFor,
  type Gateway,
  type TestDatabase,
} from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGw } from './gw.js';

const NEW_KEY = /New root API key \(shown once, keep it safe\): (sk-gw-[A-Za-z0-9_-]+)/;

function newKeyIn(output: string): string {
  const key = NEW_KEY.exec(output)?.[1];
  if (!key) {
    throw new Error(`no new key printed:\n${output}`);
  }
  return key;
}

async function statusWith(gw: Gateway, key: string, base?: string): Promise<number> {
  return (await gw.request('/dashboard/status', { key, base })).status;
}

describe('gw root-key --rotate (PostgreSQL)', () => {
  let db: TestDatabase;
  let gw: Gateway;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    gw = await startGateway({ databaseUrl: db.url });
    env = { DATABASE_URL: db.url, NATS_URL: gw.natsUrl, ACCOUNTS_ADDR: gw.env.ACCOUNTS_ADDR ?? '' };
  });

  afterAll(async () => {
    await gw.stop();
    await db.drop();
  });

  it('prints a new root key once and revokes the old one on every edge at once', async () => {
    const oldKey = gw.rootKey;
    // The edge caches the old key: only the event can make it refuse before the cache TTL (30 s).
    expect(await statusWith(gw, oldKey)).toBe(200);

    const { code, output } = await runGw(['root-key', '--rotate'], env);
    expect(code, output).toBe(0);
    const newKey = newKeyIn(output);
    expect(output.match(/sk-gw-/g)).toHaveLength(1);
    expect(output).toContain('revoked');

    await waitFor(async () => (await statusWith(gw, oldKey)) === 401, 'the old key refused', 5_000, 50);
    expect(await statusWith(gw, newKey)).toBe(200);
    const me = (await (await gw.request('/dashboard/status', { key: newKey })).json()) as { name?: string };
    expect(JSON.stringify(me)).toContain('root');
    gw.rootKey = newKey;

    // The rotation is in the operation log, without the key.
    await waitFor(
      async () => JSON.stringify(await (await gw.request('/dashboard/logs')).json()).includes('rotate_root'),
      'the rotate_root entry',
    );
    expect(JSON.stringify(await (await gw.request('/dashboard/logs')).json())).not.toContain(newKey);
  });

  it('still rotates when NATS is unreachable, and says the edges learn it at the cache TTL', async () => {
    const oldKey = gw.rootKey;
    const { code, output } = await runGw(['root-key', '--rotate'], {
      ...env,
      NATS_URL: `nats://127.0.0.1:${await freePort()}`,
    });
    expect(code, output).toBe(0);
    const newKey = newKeyIn(output);
    expect(output).toContain('unreachable');
    expect(output).toContain('GW_AUTH_CACHE_TTL_MS');
    // An edge that has not cached the old key asks accounts: refused there already.
    const fresh = await gw.startEdgeReplica();
    expect(await statusWith(gw, oldKey, fresh)).toBe(401);
    expect(await statusWith(gw, newKey, fresh)).toBe(200);
    gw.rootKey = newKey;
  });

  it('refuses to open an embedded database while accounts runs', async () => {
    const { code, output } = await runGw(['root-key', '--rotate'], {
      NATS_URL: gw.natsUrl,
      ACCOUNTS_ADDR: gw.env.ACCOUNTS_ADDR ?? '',
      GW_DATA_DIR: gw.env.GW_DATA_DIR ?? '',
    });
    expect(code).toBe(1);
    expect(output).toContain('accounts is running');
    expect(output).not.toContain('sk-gw-');
  });
});

describe('gw root-key --rotate (the embedded PostgreSQL under GW_DATA_DIR)', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway({ embedded: true });
  });

  afterAll(() => gw.stop());

  it('with the gateway stopped, starts the embedded PostgreSQL itself; accounts serves the new key after', async () => {
    const oldKey = gw.rootKey;
    await gw.processes.get('accounts')?.stop();
    await gw.embeddedDatabase?.stop();
    const { code, output } = await runGw(['root-key', '--rotate'], {
      NATS_URL: gw.natsUrl,
      ACCOUNTS_ADDR: gw.env.ACCOUNTS_ADDR ?? '',
      GW_DATA_DIR: gw.env.GW_DATA_DIR ?? '',
    });
    expect(code, output).toBe(0);
    const newKey = newKeyIn(output);
    expect(output).toContain('embedded PostgreSQL');
    await gw.embeddedDatabase?.start();
    await gw.restartService('accounts');
    expect(await statusWith(gw, newKey)).toBe(200);
    expect(await statusWith(gw, oldKey)).toBe(401);
  });
});
