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
