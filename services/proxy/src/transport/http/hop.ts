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

/**
 * The whole body: 413 once it passes `limit` bytes, 408 when it has not all arrived within
 * `timeoutMs` (a slow upload holds no connection forever).
 */
export function readBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: AppError) => {
      clearTimeout(timer);
      req.removeAllListeners('data');
      req.resume();
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new AppError(ErrorCode.RequestTimeout, 'the request body did not arrive in time')),
      timeoutMs,
    );
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        fail(new AppError(ErrorCode.PayloadTooLarge, `request body is too large (at most ${limit} bytes)`));
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
