import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Debian's docker-compose (1.29) validates and renders a compose file without a Docker engine.
 * Installed on first use where apt-get can run (CI runs as root), so `npm test` needs no manual step.
 */
export function ensureDockerCompose(): void {
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) {
    return;
  }
  if (process.getuid?.() !== 0) {
    throw new Error('docker-compose is not installed: apt-get install docker-compose');
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
  execFileSync('apt-get', ['install', '-y', '-qq', 'docker-compose'], { stdio: 'ignore', env });
}

/**
 * `docker-compose config` of a compose file under exactly this environment (from a scratch
 * folder, so no `.env` beside the file takes part): exit status and everything it printed.
 */
export function composeConfig(file: string, env: Record<string, string>): { status: number; output: string } {
  const scratch = mkdtempSync(join(tmpdir(), 'gw-compose-'));
  try {
    copyFileSync(file, join(scratch, 'docker-compose.yml'));
    const result = spawnSync('docker-compose', ['config'], {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      encoding: 'utf8',
    });
    return { status: result.status ?? 1, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
