import { ProviderType } from '@gw/kit';
import type { PoolKey } from './pool.js';

/**
 * How a request reaches one key's upstream. `standard`: the Provider is the base URL and the
 * secret goes in `Authorization: Bearer`. A Provider ending in `/v1` is not doubled by a `/v1/…`
 * request path.
 */
export interface UpstreamTarget {
  url: URL;
  headers: Record<string, string>;
  /** Vertex AI: the caller adds `Authorization: Bearer <access token>` for this key. */
  needsAccessToken?: boolean;
}

export interface ProviderDefaults {
  /** Azure OpenAI's `api-version` per kind of call when the key's `api_versions` has none. */
  azureOpenAiApiVersions: Readonly<Record<ApiKind, string>>;
}

export const API_KINDS = ['chat', 'embeddings', 'responses', 'audio', 'images'] as const;
export type ApiKind = (typeof API_KINDS)[number];

/** Which api-version family a path belongs to. */
export function apiKindOf(path: string): ApiKind {
  if (path.startsWith('/v1/embeddings')) {
    return 'embeddings';
  }
  if (path.startsWith('/v1/responses')) {
    return 'responses';
  }
  if (path.startsWith('/v1/audio')) {
    return 'audio';
  }
  if (path.startsWith('/v1/images')) {
    return 'images';
  }
  return 'chat';
}

/**
 * The `anthropic-version` sent to an anthropic key when the client names none (a translated
 * call, or a native client that leaves it out): the version every Messages API release accepts.
 */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/**
 * One target for any provider type. `clientHeaders` are the forwardable headers of the call
 * (forwardableRequestHeaders): an anthropic key takes the client's `anthropic-version` from them.
 */
export function upstreamTarget(
  key: PoolKey,
  path: string,
  search: string,
  model: string,
  defaults: ProviderDefaults,
  clientHeaders: Readonly<Record<string, string>> = {},
): UpstreamTarget {
  switch (key.type) {
    case ProviderType.Anthropic:
      return anthropicTarget(key, path, search, clientHeaders['anthropic-version']);
    case ProviderType.Standard:
      return standardTarget(key, path, search);
    case ProviderType.AzureOpenAi:
      return azureOpenAiTarget(key, path, search, model, defaults);
    case ProviderType.VertexAi:
      return vertexAiTarget(key, path, search);
  }
}

/**
 * Azure OpenAI (`cloud_a`, deployment style): `<Provider>/openai/deployments/<deployment><rest>?api-version=…`
 * with the secret in an `api-key` header. The deployment comes from `model_mapping` (wildcards,
 * `*` the default; the model itself when nothing matches); the responses API is not per
 * deployment.
 */
export function azureOpenAiTarget(
  key: PoolKey,
  path: string,
  search: string,
  model: string,
  defaults: ProviderDefaults,
): UpstreamTarget {
  const base = key.provider.replace(/\/+$/, '');
  const rest = path.startsWith('/v1/') ? path.slice(3) : path;
  const kind = apiKindOf(path);
  const deployment = key.deployments.lookup(model) ?? model;
  const versions =
    key.config.api_versions && typeof key.config.api_versions === 'object'
      ? (key.config.api_versions as Record<string, unknown>)
      : {};
  const version =
    typeof versions[kind] === 'string' && versions[kind]
      ? versions[kind]
      : defaults.azureOpenAiApiVersions[kind];
  const query = new URLSearchParams(search);
  query.set('api-version', version);
  const target =
    kind === 'responses' || !deployment
      ? `${base}/openai${rest}`
      : `${base}/openai/deployments/${encodeURIComponent(deployment)}${rest}`;
  return { url: new URL(`${target}?${query.toString()}`), headers: { 'api-key': key.secret } };
}

/** Google Vertex AI (`cloud_b`, service account): `<base_url><rest>` with an access token (see transport/vertex-ai-tokens.ts). */
export function vertexAiTarget(key: PoolKey, path: string, search: string): UpstreamTarget {
  const base = (
    typeof key.config.base_url === 'string' && key.config.base_url ? key.config.base_url : key.provider
  ).replace(/\/+$/, '');
  const rest = path.startsWith('/v1/') ? path.slice(3) : path;
  return { url: new URL(`${base}${rest}${search}`), headers: {}, needsAccessToken: true };
}

/**
 * anthropic (Messages API): `<Provider><path>` like standard, the secret in `x-api-key`, and the
 * client's `anthropic-version` or the default (`anthropic-beta` goes on with the client headers).
 */
export function anthropicTarget(
  key: PoolKey,
  path: string,
  search: string,
  clientVersion: string | undefined,
): UpstreamTarget {
  const { url } = standardTarget(key, path, search);
  return {
    url,
    headers: { 'x-api-key': key.secret, 'anthropic-version': clientVersion ?? DEFAULT_ANTHROPIC_VERSION },
  };
}

export function standardTarget(key: PoolKey, path: string, search: string): UpstreamTarget {
  const base = key.provider.replace(/\/+$/, '');
  const suffix = /\/v1$/.test(base) && path.startsWith('/v1/') ? path.slice(3) : path;
  return { url: new URL(`${base}${suffix}${search}`), headers: { authorization: `Bearer ${key.secret}` } };
}

/**
 * Several sets of headers in one new object, a later set's value over an earlier one's, copied
 * name by name: spreading them into one takes V8's slow path (CONTRIBUTING.md, objects on the
 * per-call path).
 */
export function mergeHeaders(
  ...sets: ReadonlyArray<Readonly<Record<string, string>>>
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const set of sets) {
    for (const name of Object.keys(set)) {
      merged[name] = set[name] as string;
    }
  }
  return merged;
}

/**
 * Request headers that go upstream, by allowlist: what describes the body and the client, the
 * opt-in to beta APIs (OpenAI's and Anthropic's) and Anthropic's API version. Never credentials (the key is the pool's), cookies, hop-by-hop headers,
 * anything internal, or `OpenAI-Organization` / `OpenAI-Project` (a tenant must not choose which
 * organisation of the owner's key pays).
 */
const REQUEST_HEADERS = new Set([
  'accept',
  'user-agent',
  'openai-beta',
  'anthropic-beta',
  'anthropic-version',
]);

export function forwardableRequestHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value !== undefined && (REQUEST_HEADERS.has(lower) || lower.startsWith('x-stainless-'))) {
      out[lower] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  // We read the body for usage: ask for it uncompressed.
  out['accept-encoding'] = 'identity';
  return out;
}

/**
 * Response headers passed back to the client, by allowlist. Never the upstream's cookies, its
 * `openai-organization` / `openai-project` or its `x-ratelimit-*` headers: they describe the
 * owner's key, not the caller.
 */
const RESPONSE_HEADERS = new Set([
  'content-type',
  'content-disposition',
  'cache-control',
  'openai-processing-ms',
  'openai-version',
  'x-request-id',
  'request-id',
]);

export function forwardableResponseHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && RESPONSE_HEADERS.has(name.toLowerCase())) {
      out[name.toLowerCase()] = value;
    }
  }
  return out;
}
