import { createHash } from 'node:crypto';

/**
 * How an account API key is stored and looked up: hex SHA-256 of the key as presented. The edge
 * hashes the Bearer key and accounts stores the same hash, so both must use this one function.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
