import { AppError, ErrorCode } from '@gw/kit';
import { canonicalPath } from './providers.js';
import { parseJson } from './sse.js';

/** A client request as the relay understands it. */
export interface ParsedRequest {
  path: string;
  search: string;
  raw: Buffer;
  json: Record<string, unknown> | undefined;
  model: string;
  stream: boolean;
  /** We asked upstream for usage on the client's behalf and must hide the extra chunk. */
  injectUsage: boolean;
}

/** Reads the model, the stream flag and whether usage must be asked for on the client's behalf. */
export function parseRequest(url: string, contentType: string, raw: Buffer): ParsedRequest | AppError {
  const parsedUrl = new URL(url, 'http://proxy');
  const path = canonicalPath(parsedUrl.pathname);
  let json: Record<string, unknown> | undefined;
  let model = '';
  if (raw.length > 0 && contentType.includes('json')) {
    const value = parseJson(raw.toString('utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      return new AppError(ErrorCode.InvalidRequest, 'request body is not a JSON object');
    }
    json = value as Record<string, unknown>;
    model = typeof json.model === 'string' ? json.model : '';
  } else if (raw.length > 0 && contentType.includes('multipart/form-data')) {
    // Audio and image edits: the model is a form field; the body goes upstream unchanged.
    model = /name="model"\r\n\r\n([^\r\n]*)\r\n/.exec(raw.toString('latin1'))?.[1] ?? '';
  }
  const stream = json?.stream === true;
  const options = json?.stream_options as { include_usage?: unknown } | undefined;
  const injectUsage =
    stream &&
    options?.include_usage !== true &&
    (path === '/v1/chat/completions' || path === '/v1/completions');
  return { path, search: parsedUrl.search, raw, json, model, stream, injectUsage };
}

/** The body for one candidate: the served model written in, usage asked for when we need it. */
export function bodyFor(request: ParsedRequest, model: string): Buffer {
  if (!request.json || (model === request.json.model && !request.injectUsage)) {
    return request.raw;
  }
  const body: Record<string, unknown> = { ...request.json };
  if (model) {
    body.model = model;
  }
  if (request.injectUsage) {
    body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
  }
  return Buffer.from(JSON.stringify(body));
}
