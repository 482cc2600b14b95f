import type { ConfigDeps } from './ports/deps.js';
import { ownerConfig, type OwnerConfig } from './owner-config.js';

/** The owner's configuration; EMAIL_PASS only for internal readers that ask for it. */
export async function getConfig(
  deps: ConfigDeps,
  input: { ownerId: bigint; revealSecrets: boolean },
): Promise<OwnerConfig> {
  const version = await deps.store.version(input.ownerId);
  const stored = await deps.store.values(input.ownerId);
  return ownerConfig(deps.box, input.ownerId, version, stored, input.revealSecrets);
}
