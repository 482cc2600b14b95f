import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GwConfig } from './config.js';
import { refusalWhileRunning, withGatewayDatabase } from './gateway-database.js';
import { runServiceCommand } from './service-command.js';

/** Every service that stores ciphers of GW_SECRET_KEY, each with its own rotate command. */
const SEALING_SERVICES = ['keypool', 'config'] as const;

function readKeyFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * `gw secrets rotate-key`: re-encrypts what keypool and config store under a new GW_SECRET_KEY,
 * each service in one transaction through its own command, with those services stopped.
 *
 * The current key is GW_SECRET_KEY, else the one `npm start` keeps in GW_DATA_DIR/secret.key (which
 * is then updated). The new key is GW_NEW_SECRET_KEY, else a generated one, printed before any
 * change so it is never lost. Each service's command skips a service already on the new key, so
 * after a failure the same command, with GW_NEW_SECRET_KEY set to the printed key, finishes.
 */
export async function rotateSecretKey(config: GwConfig): Promise<number> {
  const refusal = refusalWhileRunning(config, 'then rotate: its services hold the current key');
  if (refusal) {
    process.stderr.write(`gw: ${refusal}\n`);
    return 1;
  }
  const keyFile = join(config.GW_DATA_DIR, 'secret.key');
  const fromFile = config.GW_SECRET_KEY === undefined;
  const current = config.GW_SECRET_KEY ?? readKeyFile(keyFile);
  if (current === undefined) {
    process.stderr.write(`set GW_SECRET_KEY to the current key (no ${keyFile} either)\n`);
    return 1;
  }
  const next = config.GW_NEW_SECRET_KEY ?? randomBytes(32).toString('hex');
  if (config.GW_NEW_SECRET_KEY === undefined) {
    process.stdout.write(
      `New GW_SECRET_KEY (keep it safe; re-run with GW_NEW_SECRET_KEY=<it> after a failure): ${next}\n`,
    );
  }
  const rotated = await withGatewayDatabase(
    config,
    'then rotate: its services hold the current key',
    [],
    async (environment) => {
      const env = { ...environment, GW_SECRET_KEY: current, GW_NEW_SECRET_KEY: next };
      for (const service of SEALING_SERVICES) {
        const code = await runServiceCommand(service, 'rotate-secret-key', env);
        if (code !== 0) {
          process.stderr.write(`stopped: ${service} failed; services before it already use the new key\n`);
          return code;
        }
      }
      return 0;
    },
  );
  if (rotated !== 0) {
    return rotated;
  }
  if (fromFile) {
    writeFileSync(keyFile, `${next}\n`, { mode: 0o600 });
    process.stdout.write(`${keyFile} now holds the new key: npm start uses it from the next start\n`);
  } else {
    process.stdout.write('Start keypool and config with GW_SECRET_KEY set to the new key.\n');
  }
  return 0;
}
