import { parseMapper, PatternTable, ProviderType, splitPatternList } from '@gw/kit';
import { modelLimitTableOf, type Limits } from './limits.js';

/** An owner's key pool and routing configuration as the proxy holds it in memory. */

export interface PoolKey {
  /** Key id, decimal string (int64). */
  id: string;
  /** The owner's display name for the key ('' when none). */
  name: string;
  level: number;
  /** Upstream base URL. */
  provider: string;
  /** Decrypted upstream secret: lives in memory only, never logged. */
  secret: string;
  /** Status true: takes part in load balancing. */
  active: boolean;
  type: ProviderType;
  config: Record<string, unknown>;
  /** Azure OpenAI: `model_mapping` (model pattern → deployment), compiled once; empty otherwise. */
  deployments: PatternTable<string>;
}

/** The owner's mappers, parsed and compiled once per snapshot (never per request). */
export interface Routing {
  /** MODEL_MAPPER: pattern → model. */
  modelMapper: PatternTable<string>;
  /** LEVEL_MAPPER: pattern → Level; empty means the lowest Level serves every model. */
  levelMapper: PatternTable<number>;
  /** MODEL_FAILOVER: pattern → backup models in order. */
  failover: PatternTable<string[]>;
  /** SWITCH_OVER: Level → backup Level (the first entry for a Level wins). */
  switchOver: ReadonlyMap<number, number>;
  /** RESOURCES: the catalogue paths the owner's accounts may call; empty allows every one. */
  resources: readonly string[];
  /** MODEL_LIMITS: the owner's per-model rate limits. */
  modelLimits: PatternTable<Limits>;
}

export interface OwnerPool {
  ownerId: string;
  version: string;
  /** Root's pool (keypool says so): its upstreams may be loopback or private (docs/decisions.md §7). */
  ownerIsRoot: boolean;
  keys: PoolKey[];
  /** Owner configuration values as stored: MODEL_MAPPER, LEVEL_MAPPER, MODEL_FAILOVER, SWITCH_OVER, … */
  config: Readonly<Record<string, string>>;
  routing: Routing;
}

const isInteger = (text: string) => /^-?\d+$/.test(text);

/** A LEVEL_MAPPER (the owner's or an account's): `<pattern>=<Level>`, non-integer Levels ignored. */
export function levelMapperOf(text: string): PatternTable<number> {
  return new PatternTable(
    parseMapper(text)
      .filter(([, level]) => isInteger(level))
      .map(([pattern, level]) => [pattern, Number(level)] as const),
  );
}

export function compileRouting(config: Readonly<Record<string, string>>): Routing {
  const failover = parseMapper(config.MODEL_FAILOVER ?? '').map(
    ([pattern, backups]) =>
      [
        pattern,
        backups
          .split('|')
          .map((name) => name.trim())
          .filter(Boolean),
      ] as const,
  );
  const switchOver = new Map<number, number>();
  for (const [from, to] of parseMapper(config.SWITCH_OVER ?? '')) {
    if (isInteger(from) && isInteger(to) && !switchOver.has(Number(from))) {
      switchOver.set(Number(from), Number(to));
    }
  }
  return {
    modelMapper: new PatternTable(parseMapper(config.MODEL_MAPPER ?? '')),
    levelMapper: levelMapperOf(config.LEVEL_MAPPER ?? ''),
    failover: new PatternTable(failover),
    switchOver,
    resources: splitPatternList(config.RESOURCES ?? ''),
    modelLimits: modelLimitTableOf(config.MODEL_LIMITS ?? ''),
  };
}

/** A key as the snapshot describes it, with its `model_mapping` compiled. */
export function poolKey(key: Omit<PoolKey, 'deployments' | 'name'> & { name?: string }): PoolKey {
  const mapping = key.type === ProviderType.AzureOpenAi ? key.config.model_mapping : undefined;
  const entries =
    mapping && typeof mapping === 'object'
      ? Object.entries(mapping as Record<string, unknown>).filter(
          (entry): entry is [string, string] => typeof entry[1] === 'string',
        )
      : [];
  return { ...key, name: key.name ?? '', deployments: new PatternTable(entries) };
}

/** A pool snapshot ready for routing: the mappers compiled once. */
export function ownerPool(snapshot: Omit<OwnerPool, 'routing'>): OwnerPool {
  return { ...snapshot, routing: compileRouting(snapshot.config) };
}

export function providerTypeOf(config: Record<string, unknown>): ProviderType {
  const value = config.provider_type;
  return value === ProviderType.AzureOpenAi ||
    value === ProviderType.VertexAi ||
    value === ProviderType.Anthropic
    ? value
    : ProviderType.Standard;
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
