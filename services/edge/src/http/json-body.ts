import { AppError, ErrorCode } from '@gw/kit';
import express, { type RequestHandler } from 'express';

/** Deepest nesting of objects and arrays a management body may have. */
export const MAX_JSON_DEPTH = 32;

const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]

/**
 * Refuses a body nested deeper than MAX_JSON_DEPTH, reading the raw bytes once before they are
 * parsed: nothing after it (parsing, validation, the Idempotency-Key hash) ever walks a deeper
 * structure, and the cost is linear in the size.
 */
export function assertJsonDepth(body: Buffer): void {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (const byte of body) {
    if (inString) {
      if (escaped) {
        escaped = false;
      } else if (byte === 0x5c) {
        escaped = true;
      } else if (byte === 0x22) {
        inString = false;
      }
    } else if (byte === 0x22) {
      inString = true;
    } else if (OPEN.has(byte)) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) {
        throw new AppError(
          ErrorCode.InvalidRequest,
          `request body nests deeper than ${MAX_JSON_DEPTH} levels`,
        );
      }
    } else if (CLOSE.has(byte)) {
      depth -= 1;
    }
  }
}

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

/** A body sent without a JSON Content-Type is 415, before anything reads it. */
export const requireJsonContentType: RequestHandler = (req, _res, next) => {
  if (WITH_BODY.has(req.method) && hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
    throw new AppError(
      ErrorCode.UnsupportedMediaType,
      'the request body must be JSON, sent with Content-Type: application/json',
    );
  }
  next();
};

/** Management bodies: JSON only, at most `limit` bytes, nested at most MAX_JSON_DEPTH levels. */
export function jsonBody(limit: string): RequestHandler {
  return express.json({
    limit,
    strict: true,
    type: ['application/json', 'application/*+json'],
    verify: (_req, _res, body) => assertJsonDepth(body),
  });
}
