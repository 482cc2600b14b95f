import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { env, loadConfig } from '@gw/kit';
import { z } from 'zod';

/** The checkout `gw` runs in: its defaults are those of `npm start`. */
export const REPO = fileURLToPath(new URL('../../..', import.meta.url));

const shape = {
  NATS_URL: env.url('nats://127.0.0.1:4222'),
  /** Where `npm start` keeps embedded data and its generated secrets. */
  GW_DATA_DIR: z.string().min(1).default(join(REPO, '.data')),
  GW_SECRET_KEY: z.string().optional(),
  GW_NEW_SECRET_KEY: z.string().optional(),
};

/**
 * What `gw` reads, plus the whole environment: the service commands it runs read their own
 * variables (DATABASE_URL, <SERVICE>_ADDR, ...) from it.
 */
export function loadGwConfig(source: NodeJS.ProcessEnv) {
  return { ...loadConfig(shape, source), environment: { ...source } };
}

export type GwConfig = ReturnType<typeof loadGwConfig>;
