import { AppError, ErrorCode } from '@gw/kit';
import type { IdempotencyKeys } from './ports/idempotency.js';

/** An Idempotency-Key of a money-moving management call (docs/decisions.md §3). */
export interface IdempotencyRequest {
  callerId: bigint;
  key: string;
  /** Hex SHA-256 of the request (method, path, canonical body), computed by the edge. */
  requestHash: string;
}

const KEY = /^[\x21-\x7e]{1,255}$/;

/** Refuses a malformed key or hash before any work; an empty key means "not idempotent". */
export function checkIdempotency(request: IdempotencyRequest): void {
  if (request.key === '') {
    return;
  }
  if (!KEY.test(request.key)) {
    throw new AppError(ErrorCode.InvalidRequest, 'Idempotency-Key must be 1-255 printable ASCII characters');
  }
  if (!/^[0-9a-f]{64}$/.test(request.requestHash)) {
    throw new AppError(ErrorCode.InvalidRequest, 'request_hash must be hex SHA-256');
  }
}

/** JSON that keeps bigint and Date (the domain's answers carry both). */
export function encodeSnapshot(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, item: unknown) {
    const raw = this[key];
    if (raw instanceof Date) {
      return { $date: raw.toISOString() };
    }
    if (typeof item === 'bigint') {
      return { $bigint: item.toString() };
    }
    return item;
  });
}

export function decodeSnapshot(text: string): unknown {
  return JSON.parse(text, (_key, item: unknown) => {
    if (item && typeof item === 'object' && !Array.isArray(item)) {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record);
      if (keys.length === 1 && typeof record.$bigint === 'string') {
        return BigInt(record.$bigint);
      }
      if (keys.length === 1 && typeof record.$date === 'string') {
        return new Date(record.$date);
      }
    }
    return item;
  });
}

/**
 * Runs `work` once per (caller, key) inside the caller's transaction, the claim made `at`: the claim row, the money
 * movement and the stored answer commit together or not at all. The same key with the same
 * request replays the stored answer; with another request it is a conflict and nothing moves.
 */
export async function runOnce<T>(
  keys: IdempotencyKeys,
  request: IdempotencyRequest,
  operation: string,
  at: Date,
  work: () => Promise<T>,
): Promise<{ value: T; replayed: boolean }> {
  if (request.key === '') {
    return { value: await work(), replayed: false };
  }
  const stored = await keys.claim(request.callerId, request.key, request.requestHash, operation, at);
  if (stored) {
    if (stored.requestHash !== request.requestHash || stored.operation !== operation) {
      throw new AppError(ErrorCode.Conflict, 'this Idempotency-Key was already used for another request');
    }
    // The stored answer is what `work` returned for this very request.
    return { value: decodeSnapshot(stored.response) as T, replayed: true };
  }
  const value = await work();
  await keys.saveResponse(request.callerId, request.key, encodeSnapshot(value));
  return { value, replayed: false };
}
