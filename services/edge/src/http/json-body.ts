import { AppError, assertJsonDepth, ErrorCode } from '@gw/kit';
import express, { type RequestHandler } from 'express';

/** Deepest nesting of objects and arrays a management body may have. */
const MAX_JSON_DEPTH = 32;

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
    verify: (_req, _res, body) => assertJsonDepth(body, MAX_JSON_DEPTH),
  });
}
