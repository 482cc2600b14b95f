import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGw } from '../packages/cli/test/gw.js';
import { clusterDir, embeddedDatabaseUrl, runningServer } from '../packages/cli/src/embedded-postgres.js';
import { ALL_SERVICES, GRPC_SERVICES, localPorts } from '../packages/kit/src/topology.js';
import { queryOnce, waitFor } from '../packages/testkit/src/index.js';
import { canConnect } from './lib/net.js';
import { freeBase, launch, type Launched } from './launcher-fixture.js';

/** Every process under pid (children, their children, …): pid and command line as `ps` shows it. */
function descendants(pid: number): Array<{ pid: number; command: string }> {
  const found: Array<{ pid: number; command: string }> = [];
  const visit = (parent: number) => {
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8')
        .split(' ')
        .filter(Boolean)
        .map(Number);
    } catch {
      return;
    }
    for (const child of children) {
      try {
        const command = readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
        found.push({ pid: child, command });
      } catch {
        continue;
      }
      visit(child);
    }
  };
  visit(pid);
  return found;
}

// `npm start` without DATABASE_URL: one embedded PostgreSQL, each service in its own schema of its
// one database, as in production with DATABASE_URL; no service opens a database of its own.
describe('npm start without DATABASE_URL', () => {
  let dataDir: string;
  let base: number;
  let ports: ReturnType<typeof localPorts>;
  let run: Launched;
  let rootKey: string;
  let env: Record<string, string>;
  let privateParent: string;
  const asRoot = process.getuid?.() === 0;

  const started = async () => {
    const launched = launch(env);
    await waitFor(
      () => Promise.resolve(launched.output().includes('gateway ready')),
      'gateway ready',
      120_000,
      200,
    );
    return launched;
  };
  const interrupted = async (launched: Launched) => {
    const exited = new Promise<number | null>((resolve) => launched.child.once('exit', resolve));
    process.kill(-(launched.child.pid ?? 0), 'SIGINT');
    return exited;
  };
  const status = async (key: string) =>
    (
      await fetch(`http://127.0.0.1:${base}/dashboard/status`, {
        headers: { authorization: `Bearer ${key}` },
      })
    ).status;
  const databaseUrl = () =>
    embeddedDatabaseUrl(readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim(), ports.postgresPort);

  beforeAll(async () => {
    // The data folder inside a folder private to its creator, as a checkout under /root is: run
    // as root, the server's user may not enter it, so the cluster lives under /var/lib/ai-gateway.
    privateParent = mkdtempSync(join(tmpdir(), 'gw-embedded-'));
    dataDir = join(privateParent, 'data');
    mkdirSync(dataDir);
    base = await freeBase();
    ports = localPorts(base);
    env = { GW_PORT_BASE: String(base), GW_DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    run = await started();
    rootKey = /export ROOT_KEY=(\S+)/.exec(run.output())?.[1] ?? '';
  });

  afterAll(() => {
    if (run.child.exitCode === null) {
      process.kill(-(run.child.pid ?? 0), 'SIGKILL');
    }
    if (asRoot) {
      rmSync(dirname(clusterDir(dataDir)), { recursive: true, force: true });
    }
    rmSync(privateParent, { recursive: true, force: true });
  });

  it('runs one PostgreSQL, at the base +22, holding every service schema; each process named in ps', async () => {
    expect(await status(rootKey)).toBe(200);
    expect(run.output()).toContain(`database: embedded PostgreSQL on 127.0.0.1:${ports.postgresPort}`);
    const tree = descendants(run.child.pid ?? 0);
    const servers = tree.filter(({ command }) => /\/postgres -D /.test(command));
    expect(servers, JSON.stringify(tree)).toHaveLength(1);
    for (const service of ALL_SERVICES) {
      expect(
        tree.filter(({ command }) => command === `gw-${service}`),
        service,
      ).toHaveLength(1);
    }
    const schemas = await queryOnce<{ nspname: string }>(databaseUrl(), 'SELECT nspname FROM pg_namespace');
    const names = schemas.map((row) => row.nspname);
    for (const service of GRPC_SERVICES) {
      expect(names, service).toContain(service);
    }
    // Nothing opened a database of its own in the data folder.
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
    // Run as root, the cluster moved where its server's user may enter, and the start says so.
    expect(existsSync(join(clusterDir(dataDir), 'PG_VERSION'))).toBe(true);
    if (asRoot) {
      expect(clusterDir(dataDir).startsWith('/var/lib/ai-gateway/')).toBe(true);
      expect(run.output()).toContain(`the cluster lives in ${clusterDir(dataDir)}`);
    }
  });

  it('on Ctrl-C stops the PostgreSQL it started; gw root-key and secrets commands then start it for themselves', async () => {
    expect(await interrupted(run)).toBe(0);
    expect(run.output()).toContain('stopping what this start started: redis, nats, postgres');
    expect(await canConnect('127.0.0.1', ports.postgresPort)).toBe(false);
    expect(runningServer(dataDir)).toBeUndefined();

    const rotated = await runGw(['root-key', '--rotate'], { GW_DATA_DIR: dataDir });
    expect(rotated.code, rotated.output).toBe(0);
    expect(rotated.output).toContain('started the embedded PostgreSQL');
    const newKey = /New root API key \(shown once, keep it safe\): (\S+)/.exec(rotated.output)?.[1] ?? '';
    expect(newKey).toMatch(/^sk-gw-/);

    // So does gw secrets rotate-key, for keypool's and config's schemas; the next start reads the key file.
    const keyFile = join(dataDir, 'secret.key');
    const before = readFileSync(keyFile, 'utf8');
    const resealed = await runGw(['secrets', 'rotate-key'], { GW_DATA_DIR: dataDir });
    expect(resealed.code, resealed.output).toBe(0);
    expect(resealed.output).toContain('started the embedded PostgreSQL');
    expect(readFileSync(keyFile, 'utf8')).not.toBe(before);
    expect(runningServer(dataDir)).toBeUndefined();

    // A later start reuses the cluster (no initdb) and serves the new key only.
    run = await started();
    expect(run.output()).not.toContain('creating the embedded PostgreSQL');
    expect(await status(newKey)).toBe(200);
    expect(await status(rootKey)).toBe(401);
    expect(await interrupted(run)).toBe(0);
  });
});
