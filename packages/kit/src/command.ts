import { databaseEnv, env } from './config.js';
import { openServiceDatabase, type Database } from './db.js';
import { isServing } from './grpc-client.js';
import type { KeyRotation, RotationOutcome } from './key-rotation.js';
import { createLogger, type Logger } from './log.js';
import { createSecretBox, secretKeyEnv } from './secret-box.js';
import { addressVariable, DEFAULT_ADDRESSES, type GrpcServiceName } from './topology.js';

/**
 * The frame of a service's admin command (`src/cli/*.ts`, run once by an operator, often through
 * `npx gw`): its log goes to stderr at `warn`, so stdout carries only what the command prints for
 * the operator; a failure prints its reason on stderr and exits 1.
 */
export function runCommand(name: string, run: (log: Logger) => Promise<void>): void {
  const log = createLogger(name, 'warn', process.stderr);
  run(log).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
      log.debug({ err: error }, 'command failed');
      process.exit(1);
    },
  );
}

/** The env entry of a service's own address (`<NAME>_ADDR`), for a command that must find it. */
export function serviceAddressEnv(service: GrpcServiceName) {
  return { [addressVariable(service)]: env.address(DEFAULT_ADDRESSES[service]) };
}

/**
 * Refuses to go on while the service answers at its address: a command that rewrites what the
 * service holds in memory must run with the service stopped.
 */
export async function refuseWhileServing(
  service: GrpcServiceName,
  config: Record<string, unknown>,
  why: string,
) {
  const variable = addressVariable(service);
  const address = typeof config[variable] === 'string' ? config[variable] : DEFAULT_ADDRESSES[service];
  if (await isServing(address, '')) {
    throw new Error(
      `${service} is running at ${address} (${variable}): stop every ${service} process first, ${why}`,
    );
  }
}

/** The environment of a `rotate-key` command: the service's database, address, old and new key. */
export function secretRotationEnv(service: GrpcServiceName) {
  return {
    ...databaseEnv,
    ...serviceAddressEnv(service),
    GW_SECRET_KEY: secretKeyEnv,
    GW_NEW_SECRET_KEY: secretKeyEnv,
  };
}

/**
 * `gw secrets rotate-key` for one service: with the service stopped (its processes hold the old
 * key), re-encrypts its ciphers from GW_SECRET_KEY to GW_NEW_SECRET_KEY in one transaction
 * through the service's own operation, and says what it did on stdout.
 */
export async function rotateServiceSecrets(args: {
  service: GrpcServiceName;
  config: {
    DATABASE_URL: string | undefined;
    GW_DATA_DIR: string;
    GW_DB_POOL: number;
    GW_SECRET_KEY: string;
    GW_NEW_SECRET_KEY: string;
  };
  migrations: URL;
  log: Logger;
  rotate: (db: Database, rotation: KeyRotation) => Promise<RotationOutcome>;
}): Promise<void> {
  const { service, config } = args;
  if (config.GW_SECRET_KEY.toLowerCase() === config.GW_NEW_SECRET_KEY.toLowerCase()) {
    throw new Error('GW_NEW_SECRET_KEY is the current key: generate a new one (openssl rand -hex 32)');
  }
  await refuseWhileServing(service, config, 'since they hold the old key in memory');
  const database = await openServiceDatabase(config, service, args.migrations, args.log);
  try {
    const outcome = await args.rotate(database.db, {
      from: createSecretBox(config.GW_SECRET_KEY),
      to: createSecretBox(config.GW_NEW_SECRET_KEY),
      purpose: service,
    });
    process.stdout.write(
      outcome.alreadyRotated
        ? `${service}: already encrypted with the new key; nothing changed\n`
        : `${service}: ${outcome.rows} row(s) re-encrypted with the new key, key check updated\n`,
    );
  } finally {
    await database.close();
  }
}
