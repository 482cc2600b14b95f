import type { GwConfig } from './config.js';
import { runServiceCommand } from './service-command.js';

/**
 * `gw root-key --rotate`: accounts' own command sets a new root key, prints it once and revokes
 * the old one; `gw` passes the data folder `npm start` uses when none is set.
 */
export function rotateRootKey(config: GwConfig): Promise<number> {
  return runServiceCommand('accounts', 'rotate-root-key', {
    ...config.environment,
    GW_DATA_DIR: config.GW_DATA_DIR,
    NATS_URL: config.NATS_URL,
  });
}
