import type { AddressList, Clock, SecretBox, SelfAddresses } from '@gw/kit';
import type { KeyFilter, KeyRecord, KeyRow, SleepingKey } from './model.js';

export interface KeysStore {
  list(
    ownerId: bigint,
    filter: KeyFilter,
    page: { offset: number; limit: number },
  ): Promise<{ rows: KeyRecord[]; total: number }>;
  find(ownerId: bigint, id: bigint): Promise<KeyRecord | undefined>;
  all(ownerId: bigint): Promise<KeyRecord[]>;
  /** The pool's version and whether it is root's (marked by the writes that said so). */
  pool(ownerId: bigint): Promise<{ version: bigint; ownerIsRoot: boolean }>;
  transaction<T>(work: (tx: KeysTx) => Promise<T>): Promise<T>;
}

/** Writes; each one runs with the owner's version bump in the same transaction. */
export interface KeysTx {
  insert(row: KeyRow, at: Date): Promise<KeyRecord>;
  lock(ownerId: bigint, id: bigint): Promise<KeyRecord | undefined>;
  update(ownerId: bigint, id: bigint, changes: Partial<KeyRow>, at: Date): Promise<KeyRecord>;
  delete(ownerId: bigint, id: bigint): Promise<boolean>;
  /** ownerIsRoot true marks the pool as root's (it stays marked: an owner never stops being root). */
  bumpVersion(ownerId: bigint, ownerIsRoot?: boolean): Promise<bigint>;
}

/** Sleeping keys live in Redis with a TTL so every proxy replica agrees. */
export interface SleepStore {
  /** Keys asleep, and (key, model) pairs asleep, of the owner at `now`. */
  list(ownerId: bigint, now: Date): Promise<SleepingKey[]>;
  /**
   * Wakes the given keys (and their pairs), or every key and pair of the owner; returns how many
   * sleeps it ended (those still running at `now`).
   */
  clear(ownerId: bigint, keyIds: readonly bigint[] | 'all', now: Date): Promise<number>;
}

/** Name resolution for the Provider check; undefined when the name does not resolve now. */
export interface Resolver {
  resolve(host: string): Promise<string[] | undefined>;
}

export interface PoolEvents {
  keysChanged(ownerId: bigint, version: bigint): void;
  /** Operation-log entry; details never carry a secret. */
  audit(entry: {
    action: 'add_key' | 'update_key' | 'delete_key';
    operatorId: bigint;
    targetId: bigint;
    details: string;
    ipAddress: string;
    /** Default success; a refused request is `failed` (kit `recordingFailure`). */
    status?: 'success' | 'failed';
  }): void;
}

/** The config service's LEVEL_MAPPER auto-completion (best effort: a failure never fails a create). */
export interface LevelAutoConfig {
  complete(input: {
    ownerId: bigint;
    provider: string;
    level: number;
    operatorId: bigint;
    ipAddress: string;
  }): Promise<Record<string, number>>;
}

export interface KeypoolDeps {
  store: KeysStore;
  box: SecretBox;
  resolver: Resolver;
  sleeps: SleepStore;
  events: PoolEvents;
  autoConfig: LevelAutoConfig;
  clock: Clock;
  /** The gateway's own endpoints (listen addresses, GW_EDGE_PORT, GW_PUBLIC_URL, GW_SELF_HOSTS). */
  self: SelfAddresses;
  /** Loopback and private ranges a tenant owner's Provider may use (GW_TENANT_PRIVATE_CIDRS). */
  tenantPrivate: AddressList;
}
