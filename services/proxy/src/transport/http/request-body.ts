import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, ErrorCode } from '@gw/kit';
import type { BodyHold } from '../../domain/body-budget.js';

/** The first value of a request header. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The whole body: 413 once it passes `limit` bytes (at once when its Content-Length says so), 408
 * when it has not all arrived within `timeoutMs` (a slow upload holds no connection forever).
 * Every byte held is taken from `hold` before it is kept (429 over the proxy's or the account's
 * bound, before reading on) and given back when the response ends. A body that announces its
 * length is read into one buffer of that size, never held twice.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  timeoutMs: number,
  hold: BodyHold,
): Promise<Buffer> {
  res.once('close', () => hold.release());
  const refuse = (error: Error) => {
    // Drain what is still coming, so the refusal is answered on a clean connection.
    req.resume();
    return Promise.reject(error);
  };
  const announced = Number(header(req, 'content-length') ?? Number.NaN);
  const length = Number.isSafeInteger(announced) && announced >= 0 ? announced : undefined;
  if (length !== undefined && length > limit) {
    return refuse(tooLarge(limit));
  }
  try {
    hold.take(length ?? 0);
  } catch (error) {
    return refuse(error as Error);
  }
  return new Promise((resolve, reject) => {
    const whole = length === undefined ? undefined : Buffer.allocUnsafe(length);
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: Error) => {
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
      if (size + chunk.length > (length ?? limit)) {
        fail(tooLarge(length ?? limit));
        return;
      }
      if (whole) {
        chunk.copy(whole, size);
      } else {
        try {
          hold.take(chunk.length);
        } catch (error) {
          fail(error as Error);
          return;
        }
        chunks.push(chunk);
      }
      size += chunk.length;
    });
    req.on('end', () => {
      clearTimeout(timer);
      resolve(whole ? whole.subarray(0, size) : Buffer.concat(chunks));
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function tooLarge(limit: number): AppError {
  return new AppError(ErrorCode.PayloadTooLarge, `request body is too large (at most ${limit} bytes)`);
}
