import type { AddressList, Clock, SecretBox, SelfAddresses } from '@gw/kit';

/** The system-wide settings (root's POST /x-conf switches) and their version. */
export interface SystemSettings {
  version: bigint;
  /** LogEnable: every edge and proxy writes its per-request access lines. */
  logEnable: boolean;
}

export interface ConfigStore {
  /** The stored values of an owner (EMAIL_PASS as its cipher). */
  values(ownerId: bigint): Promise<Record<string, string>>;
  version(ownerId: bigint): Promise<bigint>;
  /** Version 0 and the defaults until the first change. */
  systemSettings(): Promise<SystemSettings>;
  /** Applies the given fields (unset: unchanged) and bumps the version, atomically. */
  updateSystemSettings(change: { logEnable?: boolean }, at: Date): Promise<SystemSettings>;
  transaction<T>(work: (tx: ConfigTx) => Promise<T>): Promise<T>;
}

export interface ConfigTx {
  /** Serialises the owner's writers and returns the stored values. */
  lockOwner(ownerId: bigint): Promise<Record<string, string>>;
  /** Stores one value, changed `at`. */
  put(ownerId: bigint, key: string, value: string, at: Date): Promise<void>;
  remove(ownerId: bigint, keys: readonly string[]): Promise<void>;
  bumpVersion(ownerId: bigint): Promise<bigint>;
}

export interface ConfigEvents {
  configUpdated(ownerId: bigint, version: bigint): void;
  /** `gw.system.updated`: the system-wide settings changed. */
  systemUpdated(version: bigint): void;
  /** Operation-log entry; details never carry a secret (of a configuration change, key names only). */
  audit(entry: {
    action: 'auto_config' | 'update_config' | 'delete_config';
    operatorId: bigint;
    targetId: bigint;
    details: string;
    ipAddress: string;
  }): void;
}

/** Name resolution for the save-time mail server check; undefined when a name does not resolve. */
export interface Resolver {
  resolve(host: string): Promise<string[] | undefined>;
}

export interface ConfigDeps {
  store: ConfigStore;
  clock: Clock;
  box: SecretBox;
  events: ConfigEvents;
  /** The gateway's own endpoints, never a mail server. */
  self: SelfAddresses;
  /** Loopback and private ranges a tenant owner's mail server may use (GW_TENANT_PRIVATE_CIDRS). */
  tenantPrivate: AddressList;
  resolver: Resolver;
}
