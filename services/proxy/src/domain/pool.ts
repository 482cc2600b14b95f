/** An owner's key pool and routing configuration as the proxy holds it in memory. */

export const ProviderType = { Standard: 'standard', CloudA: 'cloud_a', CloudB: 'cloud_b' } as const;
export type ProviderType = (typeof ProviderType)[keyof typeof ProviderType];

export interface PoolKey {
  /** Key id, decimal string (int64). */
  id: string;
  level: number;
  /** Upstream base URL. */
  provider: string;
  /** Decrypted upstream secret: lives in memory only, never logged. */
  secret: string;
  /** Status true: takes part in load balancing. */
  active: boolean;
  type: ProviderType;
  config: Record<string, unknown>;
}

export interface OwnerPool {
  ownerId: string;
  version: string;
  /** Root's pool (keypool says so): its upstreams may be loopback or private (docs/decisions.md §7). */
  ownerIsRoot: boolean;
  keys: PoolKey[];
  /** Owner configuration values: MODEL_MAPPER, LEVEL_MAPPER, MODEL_FAILOVER, SWITCH_OVER, … */
  config: Readonly<Record<string, string>>;
}

export function providerTypeOf(config: Record<string, unknown>): ProviderType {
  const value = config.provider_type;
  return value === ProviderType.CloudA || value === ProviderType.CloudB ? value : ProviderType.Standard;
}

/** Parses a key's Config JSON; anything that is not an object counts as empty. */
export function parseKeyConfig(json: string): Record<string, unknown> {
  if (!json) {
    return {};
  }
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
