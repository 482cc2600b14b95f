import { randomBytes } from 'node:crypto';
import { AppError, ErrorCode, type AiEndpoint } from '@gw/kit';
import busboy from 'busboy';
import { parse as parseContentType } from 'content-type';
import { parseJson } from './sse.js';

/** One part of a multipart upload, kept so the body can be rebuilt with another model. */
export interface FormPart {
  name: string;
  data: Buffer;
  filename?: string;
  mimeType?: string;
}

/** A client request as the relay understands it. */
export interface ParsedRequest {
  endpoint: AiEndpoint;
  raw: Buffer;
  json: Record<string, unknown> | undefined;
  form: FormPart[] | undefined;
  /** The model the client named; '' only for endpoints that name none. */
  model: string;
  stream: boolean;
  /** We asked upstream for usage on the client's behalf and must hide the extra chunk. */
  injectUsage: boolean;
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

/** Parts of a multipart body, in order; a part named twice where it must be once is refused. */
function readForm(contentType: string, raw: Buffer): Promise<FormPart[]> {
  return new Promise((resolve, reject) => {
    const parts: FormPart[] = [];
    let form: busboy.Busboy;
    try {
      form = busboy({ headers: { 'content-type': contentType }, limits: { fieldSize: raw.length } });
    } catch {
      reject(invalid('the multipart body has no boundary'));
      return;
    }
    form.on('field', (name, value, info) => {
      parts.push({ name, data: Buffer.from(value, 'utf8'), mimeType: info.mimeType });
    });
    form.on('file', (name, file, info) => {
      const chunks: Buffer[] = [];
      file.on('data', (chunk: Buffer) => chunks.push(chunk));
      file.on('end', () => {
        parts.push({ name, data: Buffer.concat(chunks), filename: info.filename, mimeType: info.mimeType });
      });
    });
    form.on('close', () => resolve(parts));
    form.on('error', () => reject(invalid('the multipart body could not be read')));
    form.end(raw);
  });
}

/**
 * Reads what the endpoint takes: a JSON object, or a multipart upload, each recognised by its
 * parsed Content-Type (case and parameters do not matter; anything else is 415). An endpoint
 * that names a model requires it as a non-empty string (400 before any routing).
 */
export async function parseRequest(
  endpoint: AiEndpoint,
  contentType: string,
  raw: Buffer,
): Promise<ParsedRequest> {
  const base = {
    endpoint,
    raw,
    json: undefined,
    form: undefined,
    model: '',
    stream: false,
    injectUsage: false,
  };
  if (endpoint.body === 'none') {
    return base;
  }
  const type = mediaTypeOf(contentType);
  if (endpoint.body === 'json') {
    if (!isJson(type)) {
      throw new AppError(ErrorCode.UnsupportedMediaType, `${endpoint.path} takes application/json`);
    }
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
  return { ...base, form, model: requireModel(model), stream: false };
}

/** A request whose model comes in the query string (a realtime session): the model is required. */
export function queryRequest(endpoint: AiEndpoint, model: string | null): ParsedRequest {
  if (!model) {
    throw invalid('the model query parameter is required');
  }
  return {
    endpoint,
    raw: Buffer.alloc(0),
    json: undefined,
    form: undefined,
    model,
    stream: false,
    injectUsage: false,
  };
}

/** A multipart body from parts; quotes in names are percent-encoded as browsers do. */
function buildForm(parts: FormPart[], boundary: string): Buffer {
  const quoted = (text: string) => `"${text.replaceAll('"', '%22').replace(/[\r\n]/g, ' ')}"`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename=${quoted(part.filename)}`;
    const type = part.filename !== undefined && part.mimeType ? `Content-Type: ${part.mimeType}\r\n` : '';
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}${filename}\r\n${type}\r\n`,
      ),
      part.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/**
 * The body for one candidate, with the Content-Type that goes with it: the served model written
 * in, usage asked for when we need it. The client's bytes go on unchanged when nothing changes.
 */
export function upstreamBody(
  request: ParsedRequest,
  model: string,
  contentType: string,
): { body: Buffer | undefined; contentType: string | undefined } {
  if (request.json) {
    if (model === request.model && !request.injectUsage) {
      return { body: request.raw, contentType };
    }
    const body: Record<string, unknown> = { ...request.json, model };
    if (request.injectUsage) {
      body.stream_options = { ...(body.stream_options as object | undefined), include_usage: true };
    }
    return { body: Buffer.from(JSON.stringify(body)), contentType: 'application/json' };
  }
  if (request.form) {
    if (model === request.model) {
      return { body: request.raw, contentType };
    }
    const boundary = `gw-${randomBytes(16).toString('hex')}`;
    const parts = request.form.map((part) =>
      part.name === 'model' ? { name: 'model', data: Buffer.from(model, 'utf8') } : part,
    );
    return { body: buildForm(parts, boundary), contentType: `multipart/form-data; boundary=${boundary}` };
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
