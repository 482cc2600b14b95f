/**
 * The closed catalogue of endpoints the gateway forwards, OpenAI-style and Anthropic's Messages
 * API (docs/api.md): stateless inference only.
 * Anything else under /v1 is 404 and never reaches an upstream. Stored-object endpoints (files,
 * batches, uploads, fine-tuning, assistants, threads, vector stores, stored responses and
 * completions) are left out on purpose: the owner's keys are shared by every tenant, so whatever
 * one tenant stored would be readable, usable and deletable by all the others.
 *
 * The catalogue is also what RESOURCES (owner) and Resources (account) allowlist: their entries
 * are catalogue paths.
 */

/** Where a request names its model. */
export type ModelSource = 'json' | 'multipart' | 'query' | 'none';

/** How a served call is metered. */
export type Metering =
  /** Tokens from the reported `usage` (or estimated from the text when there is none). */
  | 'tokens'
  /** Images made, from the answer's `data`, plus any reported token usage. */
  | 'images'
  /** Speech made from the request's `input` text (the answer is audio). */
  | 'speech'
  /**
   * Audio heard (transcriptions, translations): the duration upstream reports, else the duration
   * of the uploaded `file`, read before the call (400 when it cannot be read).
   */
  | 'audio'
  /** Not metered (model listings). */
  | 'none';

export interface AiEndpoint {
  method: 'GET' | 'POST';
  /** The path clients call and the path sent upstream (after the Provider's base). */
  path: string;
  /** The body the endpoint takes; `multipart` is an upload. */
  body: 'json' | 'multipart' | 'none';
  model: ModelSource;
  metering: Metering;
  /** Opened as a WebSocket (GET with Upgrade). */
  websocket?: true;
  /** Served even when RESOURCES or Resources are set (not an inference resource). */
  alwaysAllowed?: true;
  /**
   * Answered by the edge itself, never forwarded: the model listing is built from the default
   * price table (docs/pricing.md), not asked of an upstream.
   */
  answeredByEdge?: true;
  /**
   * Anthropic's Messages API: its clients get errors in Anthropic's shape (http-errors.ts), and it
   * is served only by `anthropic` keys.
   */
  dialect?: 'anthropic';
}

/** The error shape a client of a path expects: OpenAI's, or Anthropic's on the Messages API. */
export type ErrorDialect = 'openai' | 'anthropic';

export const AI_ENDPOINTS: readonly AiEndpoint[] = [
  { method: 'POST', path: '/v1/chat/completions', body: 'json', model: 'json', metering: 'tokens' },
  { method: 'POST', path: '/v1/completions', body: 'json', model: 'json', metering: 'tokens' },
  { method: 'POST', path: '/v1/responses', body: 'json', model: 'json', metering: 'tokens' },
  { method: 'POST', path: '/v1/embeddings', body: 'json', model: 'json', metering: 'tokens' },
  { method: 'POST', path: '/v1/images/generations', body: 'json', model: 'json', metering: 'images' },
  { method: 'POST', path: '/v1/images/edits', body: 'multipart', model: 'multipart', metering: 'images' },
  {
    method: 'POST',
    path: '/v1/images/variations',
    body: 'multipart',
    model: 'multipart',
    metering: 'images',
  },
  { method: 'POST', path: '/v1/audio/speech', body: 'json', model: 'json', metering: 'speech' },
  {
    method: 'POST',
    path: '/v1/audio/transcriptions',
    body: 'multipart',
    model: 'multipart',
    metering: 'audio',
  },
  {
    method: 'POST',
    path: '/v1/audio/translations',
    body: 'multipart',
    model: 'multipart',
    metering: 'audio',
  },
  { method: 'POST', path: '/v1/moderations', body: 'json', model: 'json', metering: 'tokens' },
  { method: 'POST', path: '/v1/rerank', body: 'json', model: 'json', metering: 'tokens' },
  {
    method: 'POST',
    path: '/v1/messages',
    body: 'json',
    model: 'json',
    metering: 'tokens',
    dialect: 'anthropic',
  },
  // Counting tokens is free upstream, and so here: limited as a call, never charged.
  {
    method: 'POST',
    path: '/v1/messages/count_tokens',
    body: 'json',
    model: 'json',
    metering: 'none',
    dialect: 'anthropic',
  },
  { method: 'GET', path: '/v1/realtime', body: 'none', model: 'query', metering: 'tokens', websocket: true },
  {
    method: 'GET',
    path: '/v1/models',
    body: 'none',
    model: 'none',
    metering: 'none',
    alwaysAllowed: true,
    answeredByEdge: true,
  },
];

/** The paths RESOURCES and Resources may name: every inference endpoint of the catalogue. */
export const AI_RESOURCE_PATHS: readonly string[] = AI_ENDPOINTS.filter((e) => !e.alwaysAllowed).map(
  (e) => e.path,
);

const byRoute = new Map(AI_ENDPOINTS.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint]));

/**
 * A path of plain segments (letters, digits, `-`, `_`), as every client sends them, is canonical
 * already: nothing to decode, no dot segment, no doubled or back slash. Every call's path is
 * looked up this way, so it skips the decoding and the rebuilding.
 */
const PLAIN_PATH = /^(?:\/[\w-]+)+$/;

/**
 * The path a client asked for, canonical: percent-decoded once, backslashes read as slashes,
 * empty and `.` segments dropped, `..` applied; `/models` is `/v1/models`. Undefined when it
 * cannot be decoded or holds a NUL. Only an exact catalogue match of the result is served, and
 * the upstream URL is built from that entry, never from the raw path.
 */
export function canonicalAiPath(rawPath: string): string | undefined {
  if (PLAIN_PATH.test(rawPath)) {
    return rawPath === '/models' ? '/v1/models' : rawPath;
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) {
    return undefined;
  }
  const segments: string[] = [];
  for (const segment of decoded.replaceAll('\\', '/').split('/')) {
    if (segment === '..') {
      segments.pop();
    } else if (segment !== '' && segment !== '.') {
      segments.push(segment);
    }
  }
  const path = `/${segments.join('/')}`;
  return path === '/models' ? '/v1/models' : path;
}

/** The catalogue entry a request is for, or undefined (404: never forwarded). */
export function findAiEndpoint(method: string, rawPath: string, websocket = false): AiEndpoint | undefined {
  const path = canonicalAiPath(rawPath);
  const endpoint = path === undefined ? undefined : byRoute.get(`${method.toUpperCase()} ${path}`);
  return endpoint && (endpoint.websocket === true) === websocket ? endpoint : undefined;
}

/** The methods of the endpoints the edge answers itself: a call with another is never one of them. */
const EDGE_ANSWERED_METHODS: ReadonlySet<string> = new Set(
  AI_ENDPOINTS.filter((e) => e.answeredByEdge).map((e) => e.method),
);

/**
 * Whether the edge answers this call itself (the model listing). Checked on every AI call before
 * the relay looks the call up, so a method no such endpoint has (every POST) skips the lookup.
 */
export function isAnsweredByEdge(method: string, rawPath: string): boolean {
  return (
    EDGE_ANSWERED_METHODS.has(method.toUpperCase()) &&
    findAiEndpoint(method, rawPath)?.answeredByEdge === true
  );
}

const ANTHROPIC_PATHS = AI_ENDPOINTS.filter((e) => e.dialect === 'anthropic').map((e) => e.path);

/**
 * The error shape for a request path (raw, as the client sent it): Anthropic's on and under the
 * Messages API's paths (an unknown `/v1/messages/…` too), OpenAI's everywhere else.
 */
export function errorDialectOf(rawPath: string): ErrorDialect {
  const path = canonicalAiPath(rawPath.split('?')[0] ?? '/');
  return path !== undefined && ANTHROPIC_PATHS.some((p) => path === p || path.startsWith(`${p}/`))
    ? 'anthropic'
    : 'openai';
}

/** Whether an allowlist (RESOURCES, Resources: catalogue paths) lets a call to this endpoint through. */
export function allowsResource(allowlist: readonly string[], endpoint: AiEndpoint): boolean {
  return endpoint.alwaysAllowed === true || allowlist.length === 0 || allowlist.includes(endpoint.path);
}
