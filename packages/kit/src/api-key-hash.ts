import { hash } from 'node:crypto';

/**
 * How an account API key is stored and looked up: hex SHA-256 of the key as presented. The edge
 * hashes the Bearer key and accounts stores the same hash, so both must use this one function.
 * One-shot `hash`: every AI call hashes its key, and a `Hash` object per call cost about three
 * times as much.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
