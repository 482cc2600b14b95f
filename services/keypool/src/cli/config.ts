import { loadConfig, secretRotationEnv } from '@gw/kit';

/** The environment of `rotate-secret-key`: the database, keypool's address, the old and new key. */
export function loadRotationConfig(source: NodeJS.ProcessEnv) {
  return loadConfig(secretRotationEnv('keypool'), source);
}
