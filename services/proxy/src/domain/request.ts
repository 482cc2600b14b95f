import { AppError, assertJsonDepth, ErrorCode, type AiEndpoint } from '@gw/kit';
import { parse as parseContentType } from 'content-type';
import { audioDurationMs } from './audio-duration.js';
import { buildForm, readForm, type FormPart } from './multipart.js';
import { parseJson } from './sse.js';

/**
 * Deepest nesting of objects and arrays an AI body may have: deeper than any tool or response
 * schema needs, shallow enough that re-serialising it can never overflow the stack (400, not 500).
 */
export const AI_JSON_MAX_DEPTH = 128;

/** A client request as the relay understands it. */
export interface ParsedRequest {
  endpoint: AiEndpoint;
  /** The body's size in bytes as the client sent it. */
  size: number;
  json: Record<string, unknown> | undefined;
  form: FormPart[] | undefined;
  /** The model the client named; '' only for endpoints that name none. */
  model: string;
  stream: boolean;
  /** We asked upstream for usage on the client's behalf and must hide the extra chunk. */
  injectUsage: boolean;
  /** Audio-metered endpoints: how long the uploaded file plays, in ms (0 elsewhere). */
  audioMs: number;
}

const invalid = (message: string) => new AppError(ErrorCode.InvalidRequest, message);

/** The media type without parameters, lower case; undefined when absent or unparseable. */
function mediaTypeOf(header: string): string | undefined {
  try {
    return header ? parseContentType(header).type : undefined;
  } catch {
    return undefined;
  }
}

const isJson = (type: string | undefined) => type === 'application/json' || type?.endsWith('+json') === true;

function requireModel(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid('model: is required and must be a non-empty string');
  }
  return value;
}

/**
 * Reads what the endpoint takes: a JSON object, or a multipart upload, each recognised by its
 * parsed Content-Type (case and parameters do not matter; anything else is 415). An endpoint
 * that names a model requires it as a non-empty string (400 before any routing). What is read
 * here is what is checked, billed and forwarded: upstream gets the serialisation of the parsed
 * value (a key given twice counts once, as JSON.parse keeps the last), never the client's bytes.
 */
export async function parseRequest(
  endpoint: AiEndpoint,
  contentType: string,
  raw: Buffer,
): Promise<ParsedRequest> {
  const base = {
    endpoint,
    size: raw.length,
    json: undefined,
    form: undefined,
    model: '',
    stream: false,
    injectUsage: false,
    audioMs: 0,
  };
  if (endpoint.body === 'none') {
    return base;
  }
  const type = mediaTypeOf(contentType);
  if (endpoint.body === 'json') {
    if (!isJson(type)) {
      throw new AppError(ErrorCode.UnsupportedMediaType, `${endpoint.path} takes application/json`);
    }
    assertJsonDepth(raw, AI_JSON_MAX_DEPTH);
    const value = parseJson(raw.toString('utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      throw invalid('request body is not a JSON object');
    }
    const json = value as Record<string, unknown>;
    const stream = json.stream === true;
    const options = json.stream_options as { include_usage?: unknown } | undefined;
    return {
      ...base,
      json,
      model: endpoint.model === 'json' ? requireModel(json.model) : '',
      stream,
      injectUsage:
        stream &&
        options?.include_usage !== true &&
        (endpoint.path === '/v1/chat/completions' || endpoint.path === '/v1/completions'),
    };
  }
  if (type !== 'multipart/form-data') {
    throw new AppError(ErrorCode.UnsupportedMediaType, `${endpoint.path} takes multipart/form-data`);
  }
  const form = await readForm(contentType, raw);
  const models = form.filter((part) => part.name === 'model');
  if (models.length > 1) {
    throw invalid('model: given more than once');
  }
  const model = models[0]?.filename === undefined ? models[0]?.data.toString('utf8') : undefined;
  return {
    ...base,
    form,
    model: requireModel(model),
    stream: false,
    audioMs: endpoint.metering === 'audio' ? await audioDurationMs(form) : 0,
  };
}

/** A request whose model comes in the query string (a realtime session): the model is required. */
export function queryRequest(endpoint: AiEndpoint, model: string | null): ParsedRequest {
  if (!model) {
    throw invalid('the model query parameter is required');
  }
  return {
    endpoint,
    size: 0,
    json: undefined,
    form: undefined,
    model,
    stream: false,
    injectUsage: false,
    audioMs: 0,
  };
}

/**
 * The body for one candidate, with the Content-Type that goes with it: the served model written
 * in, usage asked for when we need it. Always built from what was parsed (see parseRequest).
 */
export function upstreamBody(
  request: ParsedRequest,
  model: string,
): { body: Buffer | Buffer[] | undefined; contentType: string | undefined } {
  if (request.json) {
    const body: Record<string, unknown> = { ...request.json };
    if (request.endpoint.model === 'json') {
      body.model = model;
    }
    if (request.injectUsage) {
      body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
    }
    return { body: Buffer.from(JSON.stringify(body)), contentType: 'application/json' };
  }
  if (request.form) {
    return buildForm(
      request.form.map((part) =>
        part.name === 'model' ? { name: 'model', data: Buffer.from(model, 'utf8') } : part,
      ),
    );
  }
  return { body: undefined, contentType: undefined };
}

/** The image size asked for (JSON `size` or the upload's `size` part), priced per image. */
export function imageSizeOf(request: ParsedRequest): string {
  const size = request.json?.size;
  if (typeof size === 'string') {
    return size;
  }
  return request.form?.find((part) => part.name === 'size')?.data.toString('utf8') ?? '';
}
