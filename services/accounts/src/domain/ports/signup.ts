import type { AccountsDeps } from './deps.js';

/**
 * The ports of self-signup. Its state (pending codes and tokens, waits and counters) lives in
 * Redis behind SignupStore; codes and tokens reach it only as keyed hashes.
 */
export type ReserveOutcome = 'reserved' | 'cooldown' | 'ip_cap' | 'daily_cap';

export type ClaimOutcome =
  | { kind: 'claimed'; email: string }
  /** No pending signup for it, a stale token, or older than the lifetime. */
  | { kind: 'invalid' }
  | { kind: 'wrong' }
  /** Killed by too many wrong codes. */
  | { kind: 'dead' }
  /** This address failed too often today. */
  | { kind: 'blocked' };

export interface SignupLimits {
  /** The pending signup's lifetime (code and token). */
  lifetimeMs: number;
  /** The wait between two codes for one address. */
  cooldownMs: number;
  /** Wrong codes that kill a code. */
  maxWrongCodes: number;
  /** Wrong codes per address per day, across codes. */
  maxDailyFailures: number;
  /** SAFE_ENABLE: the per-IP and daily caps apply. */
  safe: boolean;
  ipDailyCap: number;
  dailyCap: number;
}

export interface Reservation {
  emailKey: string;
  ipBucket: string;
  /** UTC day 'YYYY-MM-DD' of the counters. */
  day: string;
  nowMs: number;
  codeHash: string;
  tokenHash: string;
}

export interface SignupStore {
  /**
   * Atomically: the per-address wait, then (SAFE) the per-IP and daily caps, then stores the
   * pending signup (replacing an older one of the address) and counts it.
   */
  reserveCode(reservation: Reservation, limits: SignupLimits): Promise<ReserveOutcome>;
  /** Undoes a reservation whose mail could not be queued. */
  releaseCode(reservation: Reservation, limits: SignupLimits): Promise<void>;
  /** Atomically checks a code and, when right, consumes the pending signup (single use). */
  claimByCode(
    input: { emailKey: string; codeHash: string; nowMs: number; day: string },
    limits: SignupLimits,
  ): Promise<ClaimOutcome>;
  /** Atomically checks an activation token and consumes the pending signup. */
  claimByToken(input: { tokenHash: string; nowMs: number }, limits: SignupLimits): Promise<ClaimOutcome>;
}

/** The two signup mails, as jobs on the mail queue; false when the job could not be queued. */
export interface SignupMail {
  sendVerification(input: { ownerId: bigint; email: string; code: string; token: string }): Promise<boolean>;
  sendWelcome(input: { accountId: bigint; secretKey: string }): Promise<boolean>;
}

export interface SignupPolicy {
  /** SIGN_OWNER: id or name of the account new accounts are created under. */
  owner: string;
  /** The signup credit, granted from the owner's balance (root mints it). */
  creditNano: bigint;
  limits: SignupLimits;
  /** Keyed hash of a code or token (an HMAC under a key derived from GW_SECRET_KEY). */
  hash: (value: string) => string;
}

export interface SignupDeps extends AccountsDeps {
  signupStore: SignupStore;
  signupMail: SignupMail;
  signupPolicy: SignupPolicy;
}
