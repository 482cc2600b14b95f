import { randomFillSync } from 'node:crypto';

/** Registered prefixes for internal ids (the spec fixes account and key ids as integers). */
const PREFIX = {
  event: 'evt',
  request: 'req',
  ledger: 'led',
} as const;
export type IdKind = keyof typeof PREFIX;

/**
 * The creation time's width in base-32 digits (JavaScript's `toString(32)`: 0-9 then a-v, in ASCII
 * order): ten hold every millisecond until the year 36812, so ids of later milliseconds sort
 * after earlier ones.
 */
const TIME_DIGITS = 10;
const RANDOM_BYTES = 9;

/**
 * Random bytes for 256 ids, filled at once: one call into the system's generator per id was a
 * measurable share of an AI call's CPU (every call takes a request id and an event id). Ids name
 * things; they are not secrets.
 */
const pool = Buffer.allocUnsafe(RANDOM_BYTES * 256);
let used = pool.length;

/**
 * A new id: its kind's prefix, the millisecond it was made in, and 72 random bits. Ids sort by
 * that millisecond (as text, byte by byte), so the unique indexes they key (usage records, ledger
 * idempotency keys, the operation log) take each new one at their right-hand edge. With random
 * ids every insert landed on a random page of an ever larger index: PostgreSQL spent about half
 * as much again per charged call, more as the tables grew (bench/RESULTS.md, sixteenth round).
 */
export function newId(kind: IdKind): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const random = pool.toString('base64url', used, used + RANDOM_BYTES);
  used += RANDOM_BYTES;
  return `${PREFIX[kind]}_${Date.now().toString(32).padStart(TIME_DIGITS, '0')}${random}`;
}

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request id of a request from a client: its own `x-request-id` when that is a sane one (it
 * goes into log lines and headers), else a new one.
 */
export function requestIdFrom(given: string | string[] | undefined): string {
  return typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : newId('request');
}
