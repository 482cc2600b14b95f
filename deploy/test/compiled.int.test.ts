import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_SERVICES, type ServiceName } from '@gw/kit';
import { createTestDatabase, freePort, startGateway, type Gateway, type TestDatabase } from '@gw/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** scripts/build-service.mjs: the build deploy/Dockerfile runs, here for every service at once. */
function buildServices(outDir: string): void {
  const result = spawnSync(process.execPath, ['scripts/build-service.mjs', outDir, ...ALL_SERVICES], {
    cwd: REPO,
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`the build failed:\n${result.stdout}${result.stderr}`);
  }
}

function probe(folder: string, address: string): number | null {
  return spawnSync(
    process.execPath,
    ['--conditions=gw-dist', 'node_modules/@gw/kit/dist/health-probe.js', address],
    { cwd: folder, stdio: 'ignore' },
  ).status;
}

describe('compiled services (what each image holds and runs)', () => {
  let out: string;
  let db: TestDatabase;
  let gw: Gateway;
  const folder = (service: ServiceName) => join(out, service);

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'gw-images-'));
    buildServices(out);
    db = await createTestDatabase();
    gw = await startGateway({ databaseUrl: db.url, compiledRoot: folder });
  }, 600_000);

  afterAll(async () => {
    await gw.stop();
    await db.drop();
    rmSync(out, { recursive: true, force: true });
  });

  it('holds compiled JavaScript and production dependencies only', () => {
    for (const service of ALL_SERVICES) {
      expect(existsSync(join(folder(service), 'dist', 'main.js')), service).toBe(true);
      for (const absent of [
        'src',
        'node_modules/tsx',
        'node_modules/typescript',
        'node_modules/@gw/testkit',
      ]) {
        expect(existsSync(join(folder(service), absent)), `${service}: ${absent}`).toBe(false);
      }
      expect(existsSync(join(folder(service), 'node_modules/@gw/kit/dist/index.js')), service).toBe(true);
      expect(existsSync(join(folder(service), 'node_modules/@gw/kit/src')), service).toBe(false);
    }
  });

  it('serves the whole gateway with every process started by `node dist/main.js`', async () => {
    const health = await gw.request('/healthz', { key: null });
    expect(health.status).toBe(200);
    const status = await gw.request('/dashboard/status');
    expect(status.status).toBe(200);
  });

  it('runs a service-owned admin command from the image: accounts rotate-root-key', () => {
    const result = spawnSync(process.execPath, ['--conditions=gw-dist', 'dist/cli/rotate-root-key.js'], {
      cwd: folder('accounts'),
      env: { PATH: process.env.PATH, DATABASE_URL: db.url, NATS_URL: gw.natsUrl },
      encoding: 'utf8',
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/New root API key \(shown once, keep it safe\): sk-gw-/);
  });

  it('answers the container health probe of a gRPC service', async () => {
    expect(probe(folder('accounts'), gw.env.ACCOUNTS_ADDR ?? '')).toBe(0);
    expect(probe(folder('accounts'), `127.0.0.1:${await freePort()}`)).toBe(1);
  });
});
