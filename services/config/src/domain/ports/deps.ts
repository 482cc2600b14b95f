import type { AddressList, Clock, SecretBox, SelfAddresses } from '@gw/kit';
import type { ConfigStore } from './config.js';

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
