import type { OwnerPool } from '../pool.js';

/** Where an owner's keys and routing configuration come from; answers from memory when it can. */
export interface KeySource {
  /** The owner's pool; throws AppError('unavailable') when it cannot be loaded. */
  get(ownerId: string): Promise<OwnerPool>;
  /** Owners served from the last pool that loaded, because reloading it failed. */
  staleOwners(): number;
  close(): Promise<void>;
}
