import type { LimitWindow } from '../limits.js';
import type { PoolState } from './key-health-store.js';
import type { Admission } from './rate-limiter.js';
import type { Reservation, SpendReservation } from './spend-reservations.js';

/** What admitting one call takes from the shared store. */
export interface AdmissionInput {
  now: number;
  /** The call's rate-limit windows (none: nothing checked or counted). */
  windows: readonly LimitWindow[];
  /** The owner whose pool state is read. */
  ownerId: string;
  /** The estimate to hold; undefined when the call holds none (root). */
  reservation: SpendReservation | undefined;
}

/** Each part answered as its own port would: the rate limiter's, the key-health store's, the spend's. */
export interface AdmissionAnswer {
  limits: Admission;
  state: PoolState;
  /** Undefined when no reservation was asked for. */
  reservation: Reservation | undefined;
}

/**
 * Admission's reads and writes in one round trip to the store every replica shares: the call's
 * rate-limit windows checked and, when none is over, counted (`RateLimiter.admit`); the owner's
 * pool state read (`KeyHealthStore.state`); the call's estimate held (`SpendReservations`). Each
 * part fails open by its own port's rule: windows counted on this replica, every key awake, and
 * the reservation answered `unknown`.
 */
export interface AdmissionStore {
  admit(input: AdmissionInput): Promise<AdmissionAnswer>;
}
