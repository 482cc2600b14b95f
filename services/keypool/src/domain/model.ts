/** A provider key row as stored: secrets only as ciphers. */
export interface KeyRecord {
  id: bigint;
  ownerId: bigint;
  name: string;
  level: number;
  provider: string;
  providerHost: string;
  secretEnc: string;
  secretLast4: string;
  status: boolean;
  providerType: string;
  config: Record<string, unknown>;
  /** Cipher of a JSON object of the sensitive Config fields; '' when none. */
  configSecretsEnc: string;
  createdAt: Date;
  updatedAt: Date;
}

export type KeyRow = Omit<KeyRecord, 'id' | 'createdAt' | 'updatedAt'>;

/** What leaves the service: secrets masked, or plaintext for the proxies' snapshot. */
export interface KeyView {
  id: bigint;
  ownerId: bigint;
  name: string;
  level: number;
  provider: string;
  secretKey: string;
  status: boolean;
  config: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface KeyFilter {
  id?: bigint;
  level?: number;
  providerHost?: string;
  status?: boolean;
}

export interface SleepingKey {
  keyId: bigint;
  /** Set when the key sleeps for this model only; '' when the whole key sleeps. */
  model: string;
  remainingMs: number;
  sleepTimes: number;
}

/** Level range (the spec's level filter range). */
export const MIN_LEVEL = 0;
export const MAX_LEVEL = 9;
export const MIN_SECRET_LENGTH = 20;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
