import type { GwConfig } from './config.js';
import { withGatewayDatabase } from './gateway-database.js';
import { runServiceCommand } from './service-command.js';

/**
 * `gw root-key --rotate`: accounts' own command sets a new root key, prints it once and revokes
 * the old one, announcing it on the gateway's NATS (resolved as for every `gw` command). With
 * DATABASE_URL it runs also while the gateway runs; without it, on the embedded PostgreSQL in
 * GW_DATA_DIR, which belongs to the gateway while it runs: refused then (see withGatewayDatabase).
 */
export function rotateRootKey(config: GwConfig): Promise<number> {
  return withGatewayDatabase(
    config,
    'then rotate: its embedded database belongs to it while it runs',
    ['accounts'],
    (environment) => {
      process.stderr.write(`events go to NATS at ${config.NATS_URL} (${config.natsSource})\n`);
      return runServiceCommand('accounts', 'rotate-root-key', environment);
    },
  );
}
