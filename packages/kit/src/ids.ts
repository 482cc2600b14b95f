import { randomFillSync } from 'node:crypto';

/** Registered prefixes for internal ids (the spec fixes account and key ids as integers). */
const PREFIX = {
  event: 'evt',
  request: 'req',
  ledger: 'led',
} as const;
export type IdKind = keyof typeof PREFIX;

const ID_BYTES = 12;
/**
 * Random bytes for 256 ids, filled at once: one call into the system's generator per id was a
 * measurable share of an AI call's CPU (every call takes a request id and an event id). Ids name
 * things; they are not secrets.
 */
const pool = Buffer.allocUnsafe(ID_BYTES * 256);
let used = pool.length;

export function newId(kind: IdKind): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const random = pool.toString('base64url', used, used + ID_BYTES);
  used += ID_BYTES;
  return `${PREFIX[kind]}_${random}`;
}

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request id of a request from a client: its own `x-request-id` when that is a sane one (it
 * goes into log lines and headers), else a new one.
 */
export function requestIdFrom(given: string | string[] | undefined): string {
  return typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : newId('request');
}
