import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What `npm start` leaves in its data folder for `npx gw`: `gateway.lock`, held while the launcher
 * runs (a command that would change the folder's data refuses while it is held), and
 * `gateway.json`, the settings of the last start (where its NATS was, its addresses, whether its
 * data is in DATABASE_URL), so that a command finds the gateway's NATS and services without the
 * operator repeating the variables. Dependency-free: the launcher imports it by path.
 */
export interface GatewaySettings {
  natsUrl: string;
  redisUrl: string;
  edgeUrl: string;
  /** `<NAME>_ADDR` → host:port of each gRPC service and the proxy. */
  addresses: Record<string, string>;
  /** True when the services kept their data in DATABASE_URL, not in this folder. */
  externalDatabase: boolean;
  startedAt: string;
}

export interface LockHolder {
  pid: number;
  /** The holder's start time as the kernel counts it (Linux), so a reused pid is not mistaken for it. */
  since: string;
}

const LOCK_FILE = 'gateway.lock';
const SETTINGS_FILE = 'gateway.json';

/** Field 22 of /proc/<pid>/stat, the process's start time; '' where /proc does not exist. */
function startTimeOf(pid: number | 'self'): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; fields after it are space-separated.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

function isAlive(holder: LockHolder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') {
      return false;
    }
  }
  return holder.since === '' || startTimeOf(holder.pid) === holder.since;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The launcher holding dataDir's lock, if it still runs; a lock left by a dead one reads as none. */
export function lockHolder(dataDir: string): LockHolder | undefined {
  const holder = readJson(join(dataDir, LOCK_FILE)) as LockHolder | undefined;
  return holder && typeof holder.pid === 'number' && isAlive(holder) ? holder : undefined;
}

/**
 * Takes dataDir's lock for this process, or answers the live holder that has it. A lock whose
 * holder is gone is replaced. The file is created exclusively, so of two launchers starting
 * together one wins.
 */
export function takeLock(dataDir: string): LockHolder | undefined {
  const file = join(dataDir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, since: startTimeOf('self') };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${JSON.stringify(mine)}\n`);
      } finally {
        closeSync(fd);
      }
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error;
      }
      const holder = lockHolder(dataDir);
      if (holder) {
        return holder;
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`${file} keeps changing: is another launcher starting on this folder?`);
}

/** Gives the lock up, if this process holds it. */
export function releaseLock(dataDir: string): void {
  const file = join(dataDir, LOCK_FILE);
  if ((readJson(file) as LockHolder | undefined)?.pid === process.pid) {
    rmSync(file, { force: true });
  }
}

export function recordSettings(dataDir: string, settings: GatewaySettings): void {
  writeFileSync(join(dataDir, SETTINGS_FILE), `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
}

/** The settings of the last `npm start` on dataDir, if it ever ran there. */
export function recordedSettings(dataDir: string): GatewaySettings | undefined {
  const file = join(dataDir, SETTINGS_FILE);
  return existsSync(file) ? (readJson(file) as GatewaySettings | undefined) : undefined;
}
