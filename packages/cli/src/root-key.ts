import { lockHolder } from '@gw/kit';
import type { GwConfig } from './config.js';
import { runServiceCommand } from './service-command.js';

/**
 * Why `gw` must not change the data folder now, if it must not: the `npm start` that holds the
 * folder's lock is running (its processes hold what the command would rewrite).
 */
export function refusalWhileRunning(config: GwConfig, what: string): string | undefined {
  const holder = lockHolder(config.GW_DATA_DIR);
  return holder
    ? `the gateway on ${config.GW_DATA_DIR} is running (npm start, pid ${holder.pid}): stop it first (Ctrl-C), ${what}; nothing was changed`
    : undefined;
}

/**
 * `gw root-key --rotate`: accounts' own command sets a new root key, prints it once and revokes
 * the old one, announcing it on the gateway's NATS (resolved as for every `gw` command). Without
 * DATABASE_URL it would open the embedded database in GW_DATA_DIR, which belongs to the gateway
 * while it runs, and which holds nothing when that gateway keeps its data in DATABASE_URL: both
 * are refused before anything changes.
 */
export async function rotateRootKey(config: GwConfig): Promise<number> {
  if (!config.environment.DATABASE_URL) {
    const refusal =
      refusalWhileRunning(config, 'then rotate: its embedded database belongs to it while it runs') ??
      (config.recorded?.externalDatabase
        ? `the gateway on ${config.GW_DATA_DIR} keeps its data in DATABASE_URL: set DATABASE_URL to that database; nothing was changed`
        : undefined);
    if (refusal) {
      process.stderr.write(`gw: ${refusal}\n`);
      return 1;
    }
  }
  process.stderr.write(`events go to NATS at ${config.NATS_URL} (${config.natsSource})\n`);
  return runServiceCommand('accounts', 'rotate-root-key', config.environment);
}
