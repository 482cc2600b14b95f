import { createHash } from 'node:crypto';
import { AppError, ErrorCode } from '@gw/kit';
import type { Request, Response } from 'express';

const KEY = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted, so the same body hashes the same whatever its key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

/**
 * The optional `Idempotency-Key` header of a money-moving call (docs/decisions.md §3) and the
 * hash of the request (method, path, canonical body). With a key, accounts replays the first
 * answer for the same hash and refuses another one with 409; without one, the hash and the
 * request id name the credit movement, so a call retried inside the gateway moves it once. The
 * body was bounded in depth before it was parsed, so the canonical form never recurses deeply.
 */
export function idempotencyOf(req: Request): { idempotencyKey: string; requestHash: string } {
  const key = req.get('idempotency-key');
  if (key !== undefined && !KEY.test(key)) {
    throw new AppError(ErrorCode.InvalidRequest, 'Idempotency-Key must be 1-255 printable ASCII characters');
  }
  const requestHash = createHash('sha256')
    .update(`${req.method} ${req.path}\n${canonicalJson(req.body ?? {})}`)
    .digest('hex');
  return { idempotencyKey: key ?? '', requestHash };
}

export function markReplay(res: Response, replayed: boolean): void {
  if (replayed) {
    res.setHeader('Idempotent-Replayed', 'true');
  }
}
