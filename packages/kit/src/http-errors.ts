import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorDialectOf, type ErrorDialect } from './ai-endpoints.js';
import { AppError, detailsOf, ErrorCode } from './errors.js';
import { rateLimitHeaders } from './rate-limit-headers.js';

/**
 * The one mapping from an ErrorCode to what a client sees, used by every transport that speaks
 * HTTP or WebSocket (the edge's routes and upgrades, the proxy's relay, realtime and route
 * inspection): the status, the OpenAI-style `type`, and the spec's body
 * `{ error: { message, type, code } }`.
 */
export interface ErrorBody {
  error: { message: string; type: string; code: string };
}

export function toHttp(code: ErrorCode): { status: number; type: string } {
  switch (code) {
    case ErrorCode.InvalidRequest:
    case ErrorCode.InsufficientCredit:
      return { status: 400, type: 'invalid_request_error' };
    case ErrorCode.Unauthenticated:
      return { status: 401, type: 'authentication_error' };
    case ErrorCode.Forbidden:
    case ErrorCode.ModelNotAllowed:
      return { status: 403, type: 'permission_error' };
    case ErrorCode.NotFound:
      return { status: 404, type: 'not_found_error' };
    case ErrorCode.Conflict:
      return { status: 409, type: 'invalid_request_error' };
    case ErrorCode.PayloadTooLarge:
      return { status: 413, type: 'invalid_request_error' };
    case ErrorCode.UnsupportedMediaType:
      return { status: 415, type: 'invalid_request_error' };
    case ErrorCode.RequestTimeout:
      return { status: 408, type: 'invalid_request_error' };
    case ErrorCode.RateLimited:
      return { status: 429, type: 'rate_limit_error' };
    case ErrorCode.QuotaExceeded:
      return { status: 429, type: 'insufficient_quota' };
    case ErrorCode.Unavailable:
      return { status: 503, type: 'api_error' };
    case ErrorCode.Internal:
      return { status: 500, type: 'api_error' };
  }
}

/**
 * An error a library raised about the client's request rather than about us (the http-errors
 * shape body parsers and routers throw: a 4xx `status` or `statusCode`), as the AppError the
 * client gets. Its message stays generic: the library's may quote the input. Undefined for
 * anything else, which is ours to log.
 */
export function clientErrorOf(error: unknown): AppError | undefined {
  if (typeof error !== 'object' || error === null) {
    return undefined;
  }
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === 'number' ? status : statusCode;
  if (typeof code !== 'number' || code < 400 || code > 499) {
    return undefined;
  }
  switch (code) {
    case 408:
      return new AppError(ErrorCode.RequestTimeout, 'the request took too long to arrive');
    case 413:
      return new AppError(ErrorCode.PayloadTooLarge, 'request body is too large');
    case 415:
      return new AppError(ErrorCode.UnsupportedMediaType, 'unsupported request encoding or media type');
    default:
      return new AppError(ErrorCode.InvalidRequest, 'the request could not be read');
  }
}

export function errorBody(error: AppError): ErrorBody {
  return { error: { message: error.message, type: toHttp(error.code).type, code: error.code } };
}

/** Anthropic's error body, which its SDKs and agents read: `{ type: "error", error: { type, message } }`. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

/** Anthropic's names for the types OpenAI's shape has and Anthropic's lacks. */
const ANTHROPIC_TYPES: Readonly<Record<string, string>> = { insufficient_quota: 'rate_limit_error' };

export function anthropicErrorBody(error: AppError): AnthropicErrorBody {
  const { status, type } = toHttp(error.code);
  return {
    type: 'error',
    error: {
      type: status === 413 ? 'request_too_large' : (ANTHROPIC_TYPES[type] ?? type),
      message: error.message,
    },
  };
}

/** The body in the client's dialect (the status is the same in both). */
export function errorBodyIn(dialect: ErrorDialect, error: AppError): ErrorBody | AnthropicErrorBody {
  return dialect === 'anthropic' ? anthropicErrorBody(error) : errorBody(error);
}

/** The path a response answers (Express keeps the one before routing in `originalUrl`). */
function requestPathOf(res: ServerResponse): string {
  const req = res.req as (ServerResponse['req'] & { originalUrl?: string }) | undefined;
  return req?.originalUrl ?? req?.url ?? '/';
}

/**
 * Headers that go with an error, rendered from its details: a 429 or 503 tells the client when to
 * come back (`retryAfterSeconds`; a 503 without it, in a second), and a 429 of a rate limit shows
 * its windows (`x-ratelimit-*`).
 */
function errorHeaders(error: AppError): Record<string, string> {
  const rateLimited = detailsOf(error, ErrorCode.RateLimited);
  const headers: Record<string, string> = {
    ...(rateLimited?.windows ? rateLimitHeaders(rateLimited.windows) : {}),
    'content-type': 'application/json; charset=utf-8',
  };
  const retryAfter =
    rateLimited?.retryAfterSeconds ?? detailsOf(error, ErrorCode.Unavailable)?.retryAfterSeconds;
  if (retryAfter !== undefined && retryAfter > 0) {
    headers['retry-after'] = String(Math.ceil(retryAfter));
  } else if (error.code === ErrorCode.Unavailable) {
    headers['retry-after'] = '1';
  }
  return headers;
}

/**
 * Answers an HTTP request with the error, in the shape its path's clients read (Anthropic's on
 * the Messages API, the spec's everywhere else). When the answer has already started, the only
 * honest signal left is to cut the connection.
 */
export function sendHttpError(res: ServerResponse, error: AppError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = errorBodyIn(errorDialectOf(requestPathOf(res)), error);
  res.writeHead(toHttp(error.code).status, errorHeaders(error)).end(JSON.stringify(body));
}

/** Refuses a WebSocket upgrade with a plain HTTP answer in the same shape, then closes. */
export function refuseUpgrade(socket: Duplex, error: AppError): void {
  const { status } = toHttp(error.code);
  const body = JSON.stringify(errorBody(error));
  const headers = Object.entries({
    ...errorHeaders(error),
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${headers}\r\n${body}`);
}

/** The same error inside an open realtime session: an `error` event, as OpenAI's realtime API sends. */
export function realtimeErrorEvent(error: AppError): string {
  return JSON.stringify({ type: 'error', ...errorBody(error) });
}
