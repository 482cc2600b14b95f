import type { KeyFilter, KeyRecord, KeyRow } from '../model.js';

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
