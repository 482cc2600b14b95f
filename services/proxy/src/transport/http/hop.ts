import type { IncomingMessage } from 'node:http';
import {
  AppError,
  CALLER_HEADER,
  decodeCaller,
  ErrorCode,
  INTERNAL_TOKEN_HEADER,
  newId,
  REQUEST_ID_HEADER,
  sameSecret,
  type CallerIdentity,
} from '@gw/kit';

/** The first value of a request header. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Only the edge may call the proxy: the internal token first, then the caller identity the edge
 * authenticated. Both headers are dropped before anything goes upstream.
 */
export function trustedCaller(req: IncomingMessage, internalToken: string): CallerIdentity {
  const token = header(req, INTERNAL_TOKEN_HEADER);
  if (!token || !sameSecret(token, internalToken)) {
    throw new AppError(ErrorCode.Unauthenticated, 'internal token missing or wrong');
  }
  const caller = decodeCaller(header(req, CALLER_HEADER));
  if (!caller) {
    throw new AppError(ErrorCode.Unauthenticated, 'caller identity missing');
  }
  return caller;
}

/** The request id the edge assigned, or a new one. */
export function requestIdOf(req: IncomingMessage): string {
  return header(req, REQUEST_ID_HEADER) || newId('request');
}

/** The whole body, or undefined once it passes `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
