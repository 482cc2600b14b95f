import { mapperEntries } from './mapper-values.js';
import type { ConfigDeps } from './ports/deps.js';
import { modelFamiliesFor } from './provider-families.js';

export interface AutoConfigInput {
  ownerId: bigint;
  provider: string;
  level: number;
  operatorId: bigint;
  ipAddress: string;
}

/**
 * LEVEL_MAPPER auto-completion after a key is added: every family the Provider serves that the
 * owner has not mapped yet goes to the key's Level. The owner's own entries are never changed.
 */
export async function autoConfigLevels(
  deps: ConfigDeps,
  input: AutoConfigInput,
): Promise<{ version: bigint; added: Record<string, number> }> {
  const families = modelFamiliesFor(input.provider);
  if (families.length === 0 || !Number.isInteger(input.level) || input.level < 0 || input.level > 9) {
    return { version: await deps.store.version(input.ownerId), added: {} };
  }
  const result = await deps.store.transaction(async (tx) => {
    const stored = await tx.lockOwner(input.ownerId);
    const mapping = mapperEntries(stored.LEVEL_MAPPER ?? '');
    const added: Record<string, number> = {};
    for (const family of families) {
      if (!mapping.has(family)) {
        mapping.set(family, String(input.level));
        added[family] = input.level;
      }
    }
    if (Object.keys(added).length === 0) {
      return undefined;
    }
    await tx.put(
      input.ownerId,
      'LEVEL_MAPPER',
      [...mapping].map(([pattern, level]) => `${pattern}=${level}`).join(','),
      deps.clock.now(),
    );
    return { version: await tx.bumpVersion(input.ownerId), added };
  });
  if (!result) {
    return { version: await deps.store.version(input.ownerId), added: {} };
  }
  deps.events.configUpdated(input.ownerId, result.version);
  deps.events.audit({
    action: 'auto_config',
    operatorId: input.operatorId,
    targetId: input.ownerId,
    details: `LEVEL_MAPPER += ${Object.entries(result.added)
      .map(([pattern, level]) => `${pattern}=${level}`)
      .join(',')} (from ${new URL(input.provider).host})`,
    ipAddress: input.ipAddress,
  });
  return result;
}
