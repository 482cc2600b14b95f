import type { IdempotencyKeys } from '../../src/domain/ports/idempotency.js';
import type { Tables } from './tables.js';

/** Idempotency-Key records in memory, one per (caller, key) like the table's primary key. */
export class MemoryIdempotencyKeys implements IdempotencyKeys {
  constructor(private readonly tables: () => Tables) {}

  async claim(callerId: bigint, key: string, requestHash: string, operation: string) {
    const records = this.tables().idempotency;
    const stored = records.get(`${callerId}:${key}`);
    if (stored) {
      return { ...stored };
    }
    records.set(`${callerId}:${key}`, { requestHash, operation, response: '' });
    return undefined;
  }

  async saveResponse(callerId: bigint, key: string, response: string) {
    const stored = this.tables().idempotency.get(`${callerId}:${key}`);
    if (stored) {
      stored.response = response;
    }
  }
}
