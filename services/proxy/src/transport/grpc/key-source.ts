import {
  AppError,
  ErrorCode,
  keyConfigObject,
  SUBJECTS,
  subscribeEvents,
  type Logger,
  type NatsConnection,
  type PromiseClient,
} from '@gw/kit';
import { events, type config, type keypool } from '@gw/proto';
import type { KeySource } from '../../domain/ports.js';
import { ownerPool, parseKeyConfig, poolKey, providerTypeOf, type OwnerPool } from '../../domain/pool.js';

/** A snapshot key's Config object (what the domain reads: `model_mapping`, `base_url`, …). */
export function keyConfigOf(key: keypool.ProviderKey): Record<string, unknown> {
  if (key.config) {
    return keyConfigObject(key.config);
  }
  // A keypool that predates config sends only the JSON (docs/adr/0006-typed-contract-fields.md).
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  return parseKeyConfig(key.configJson);
}

/** Backstop for lost invalidation events. */
const MAX_AGE_MS = 30_000;

/**
 * Owner pools from the keypool snapshot RPC plus the config service's owner values, held in
 * memory (no cross-service call on the hot path) and dropped on `gw.keys.changed.<owner>` and
 * `gw.config.updated.<owner>`. A load runs at most once at a time per owner.
 */
export class GrpcKeySource implements KeySource {
  private readonly cache = new Map<string, { at: number; pool: Promise<OwnerPool> }>();
  private readonly subscriptions: Array<{ unsubscribe(): void }> = [];

  constructor(
    private readonly keypoolClient: PromiseClient<keypool.KeypoolServiceClient>,
    private readonly configClient: PromiseClient<config.ConfigServiceClient>,
    nc: NatsConnection,
    log: Logger,
  ) {
    const drop = (ownerId: bigint) => {
      this.cache.delete(String(ownerId));
    };
    this.subscriptions.push(
      subscribeEvents(nc, SUBJECTS.keysChangedAll, events.KeysChanged, (event) => drop(event.ownerId), log),
      subscribeEvents(
        nc,
        SUBJECTS.configUpdatedAll,
        events.ConfigUpdated,
        (event) => drop(event.ownerId),
        log,
      ),
    );
  }

  get(ownerId: string): Promise<OwnerPool> {
    const cached = this.cache.get(ownerId);
    if (cached && Date.now() - cached.at < MAX_AGE_MS) {
      return cached.pool;
    }
    const pool = this.load(ownerId);
    this.cache.set(ownerId, { at: Date.now(), pool });
    pool.catch(() => {
      if (this.cache.get(ownerId)?.pool === pool) {
        this.cache.delete(ownerId);
      }
    });
    return pool;
  }

  close(): Promise<void> {
    for (const subscription of this.subscriptions) {
      subscription.unsubscribe();
    }
    this.keypoolClient.close();
    this.configClient.close();
    return Promise.resolve();
  }

  private async load(ownerId: string): Promise<OwnerPool> {
    try {
      const [snapshot, values] = await Promise.all([
        this.keypoolClient.getSnapshot({ ownerId: BigInt(ownerId) }),
        this.configClient.getOwnerConfig({ ownerId: BigInt(ownerId) }),
      ]);
      // The mappers are compiled here, once per snapshot, never per request.
      return ownerPool({
        ownerId,
        version: `${snapshot.version}.${values.version}`,
        config: values.values,
        ownerIsRoot: snapshot.ownerIsRoot,
        keys: snapshot.keys.map((key) => {
          const keyConfig = keyConfigOf(key);
          return poolKey({
            id: String(key.id),
            name: key.name,
            level: key.level,
            provider: key.provider,
            secret: key.secretKey,
            active: key.status,
            type: providerTypeOf(keyConfig),
            config: keyConfig,
          });
        }),
      });
    } catch (error) {
      throw new AppError(ErrorCode.Unavailable, 'the key pool could not be loaded', { ownerId }, error);
    }
  }
}
