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
import type { KeySource } from '../../domain/ports/key-source.js';
import { ownerPool, parseKeyConfig, poolKey, providerTypeOf, type OwnerPool } from '../../domain/pool.js';
import { PoolCache } from '../../domain/pool-cache.js';

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
/** While reloads fail, the kept pool serves this long between tries. */
const RETRY_MS = 5_000;

/**
 * Owner pools from the keypool snapshot RPC plus the config service's owner values, held in
 * memory (no cross-service call on the hot path) and dropped on `gw.keys.changed.<owner>` and
 * `gw.config.updated.<owner>`. When a reload fails, the last good pool keeps serving (PoolCache).
 */
export class GrpcKeySource implements KeySource {
  private readonly cache: PoolCache;
  private readonly subscriptions: Array<{ unsubscribe(): void }> = [];

  constructor(
    private readonly keypoolClient: PromiseClient<keypool.KeypoolServiceClient>,
    private readonly configClient: PromiseClient<config.ConfigServiceClient>,
    nc: NatsConnection,
    log: Logger,
  ) {
    this.cache = new PoolCache((ownerId) => this.load(ownerId), {
      maxAgeMs: MAX_AGE_MS,
      retryMs: RETRY_MS,
      now: Date.now,
      onKept: (ownerId, error) =>
        log.warn({ ownerId, err: error }, 'key pool reload failed: serving the last pool that loaded'),
    });
    const drop = (ownerId: bigint) => this.cache.drop(String(ownerId));
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
    return this.cache.get(ownerId);
  }

  staleOwners(): number {
    return this.cache.staleOwners();
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
      throw new AppError(
        ErrorCode.Unavailable,
        'the key pool could not be loaded',
        { reason: `the key pool of owner ${ownerId}` },
        error,
      );
    }
  }
}
