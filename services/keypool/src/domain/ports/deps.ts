import type { AddressList, Clock, SecretBox, SelfAddresses } from '@gw/kit';
import type { KeysStore } from './keys.js';
import type { SleepStore } from './sleeps.js';

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
