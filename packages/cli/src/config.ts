import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addressVariable,
  ConfigError,
  env,
  GRPC_SERVICES,
  loadConfig,
  localPorts,
  parsePortBase,
  recordedSettings,
} from '@gw/kit';
import { z } from 'zod';

/** The checkout `gw` runs in: its defaults are those of `npm start`. */
export const REPO = fileURLToPath(new URL('../../..', import.meta.url));

const shape = {
  NATS_URL: env.optionalUrl(),
  GW_PORT_BASE: z.string().optional(),
  /** Where `npm start` keeps embedded data, its generated secrets and its recorded settings. */
  GW_DATA_DIR: z.string().min(1).default(join(REPO, '.data')),
  GW_SECRET_KEY: z.string().optional(),
  GW_NEW_SECRET_KEY: z.string().optional(),
};

/**
 * Where a setting of the gateway came from, as `gw` says it: the operator's variable, the port
 * base, what the last `npm start` on the data folder recorded, or the default.
 */
function sourceOf(variable: string, source: NodeJS.ProcessEnv, base: number | undefined, recorded: boolean) {
  if (source[variable]) {
    return variable;
  }
  if (base !== undefined) {
    return 'GW_PORT_BASE';
  }
  return recorded ? 'recorded by npm start in GW_DATA_DIR/gateway.json' : 'the default';
}

/**
 * What `gw` reads, plus the environment its service commands run with: the gateway's NATS and
 * service addresses resolved as `npm start` resolved them (a variable wins, then GW_PORT_BASE,
 * then the settings the last `npm start` on GW_DATA_DIR recorded, then the defaults), so a
 * command acts on the same gateway without the operator repeating its variables.
 */
export function loadGwConfig(source: NodeJS.ProcessEnv) {
  const config = loadConfig(shape, source);
  const base = parsePortBase(config.GW_PORT_BASE);
  if (base instanceof Error) {
    throw new ConfigError([base.message]);
  }
  const recorded = recordedSettings(config.GW_DATA_DIR);
  // An explicit port base describes the gateway better than the record of its last start.
  const fromRecord = base === undefined ? recorded : undefined;
  const ports = localPorts(base);
  const addresses = Object.fromEntries(
    ([...GRPC_SERVICES, 'proxy'] as const).map((name) => {
      const variable = addressVariable(name);
      return [variable, source[variable] || fromRecord?.addresses[variable] || ports.addresses[name]];
    }),
  );
  const natsUrl = config.NATS_URL ?? fromRecord?.natsUrl ?? ports.natsUrl;
  const environment: NodeJS.ProcessEnv = {
    ...source,
    ...addresses,
    NATS_URL: natsUrl,
    GW_DATA_DIR: config.GW_DATA_DIR,
  };
  return {
    ...config,
    NATS_URL: natsUrl,
    natsSource: sourceOf('NATS_URL', source, base, fromRecord !== undefined),
    /** The settings of the last `npm start` on GW_DATA_DIR, if it ever ran there. */
    recorded,
    environment,
  };
}

export type GwConfig = ReturnType<typeof loadGwConfig>;
