/** What the soak reads from /proc: which process listens on a port, and its resident memory. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const LISTEN = '0A';

/** The socket inodes listening on `port` (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const local = fields[1]?.split(':').at(-1);
      if (fields[3] === LISTEN && local !== undefined && parseInt(local, 16) === port && fields[9]) {
        inodes.add(fields[9]);
      }
    }
  }
  return inodes;
}

function fdsOf(pid: string): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    });
  } catch {
    // Gone meanwhile, or not ours to read.
    return [];
  }
}

/** The pid of the process listening on 127.0.0.1 (or any address) at `port`. */
export function pidListeningOn(port: number): number {
  const sockets = new Set([...listeningInodes(port)].map((inode) => `socket:[${inode}]`));
  if (sockets.size > 0) {
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      if (fdsOf(pid).some((link) => sockets.has(link))) {
        return Number(pid);
      }
    }
  }
  throw new Error(`no process of this machine is seen listening on port ${port}`);
}

/** Resident memory of `pid` in MB (VmRSS). */
export function rssMb(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) {
    throw new Error(`/proc/${pid}/status has no VmRSS`);
  }
  return Number(kb) / 1024;
}
