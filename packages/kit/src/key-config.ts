import type { keypool } from '@gw/proto';

/**
 * A provider key's Config between its JSON form (the HTTP API's `Config` object, which the
 * proxies read) and the contract's `gw.keypool.v1.KeyConfig`:
 * - `standard` (`provider_type` omitted or "standard"): no other field;
 * - Azure OpenAI (`cloud_a`): `model_mapping` (pattern → deployment name) and `api_versions`,
 *   both optional;
 * - Google Vertex AI (`cloud_b`): `base_url`, `project_id`, `client_email`, `private_key`;
 * - `anthropic`: no other field (the Provider is Anthropic's API base, e.g. https://api.anthropic.com).
 * Reading refuses what the contract cannot carry (a wrong type, an unknown field), naming the
 * field; the values themselves (patterns, URLs, the PEM key) are the keypool's to check.
 */
export type KeyConfig = keypool.KeyConfig;

/**
 * The `provider_type` of a key's Config. The values are the names the HTTP API, the keypool's
 * table and the console have always used, so they stay as they are: `cloud_a` is Azure OpenAI
 * and `cloud_b` is Google Vertex AI. Code names the types by the keys of this object.
 */
export const ProviderType = {
  Standard: 'standard',
  AzureOpenAi: 'cloud_a',
  VertexAi: 'cloud_b',
  Anthropic: 'anthropic',
} as const;
export type ProviderType = (typeof ProviderType)[keyof typeof ProviderType];
const PROVIDER_TYPES: readonly string[] = Object.values(ProviderType);
export const API_VERSION_KEYS = ['chat', 'embeddings', 'responses', 'audio', 'images'] as const;
const VERTEX_AI_FIELDS = ['base_url', 'project_id', 'client_email', 'private_key'] as const;

export type KeyConfigRead = { ok: true; config: KeyConfig } | { ok: false; field: string; reason: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

function fail(field: string, reason: string): KeyConfigRead {
  return { ok: false, field: `Config.${field}`, reason };
}

function unknownField(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(value).find((key) => !allowed.includes(key));
}

/** A Config object as written (undefined or null: the standard type) → the contract. */
export function readKeyConfig(raw: unknown): KeyConfigRead {
  if (raw === undefined || raw === null) {
    return { ok: true, config: {} };
  }
  if (!isPlainObject(raw)) {
    return { ok: false, field: 'Config', reason: 'must be an object' };
  }
  const type = raw.provider_type ?? ProviderType.Standard;
  if (typeof type !== 'string' || !PROVIDER_TYPES.includes(type)) {
    return fail('provider_type', `must be one of ${PROVIDER_TYPES.join(', ')}`);
  }
  switch (type as ProviderType) {
    case ProviderType.Standard: {
      const extra = unknownField(raw, ['provider_type']);
      return extra ? fail(extra, 'is not a field of the standard provider type') : { ok: true, config: {} };
    }
    case ProviderType.AzureOpenAi:
      return readAzureOpenAi(raw);
    case ProviderType.VertexAi:
      return readVertexAi(raw);
    case ProviderType.Anthropic: {
      const extra = unknownField(raw, ['provider_type']);
      return extra
        ? fail(extra, 'is not a field of the anthropic provider type')
        : { ok: true, config: { providerType: { $case: 'anthropic', value: {} } } };
    }
  }
}

function readAzureOpenAi(raw: Record<string, unknown>): KeyConfigRead {
  const extra = unknownField(raw, ['provider_type', 'model_mapping', 'api_versions']);
  if (extra) {
    return fail(extra, 'is not a field of the cloud_a (Azure OpenAI) provider type');
  }
  const azureOpenai: keypool.AzureOpenAiConfig = {};
  if (raw.model_mapping !== undefined) {
    if (!isPlainObject(raw.model_mapping)) {
      return fail('model_mapping', 'must be an object of model pattern to deployment name');
    }
    const entries: keypool.Deployment[] = [];
    for (const [pattern, deployment] of Object.entries(raw.model_mapping)) {
      if (typeof deployment !== 'string') {
        return fail(`model_mapping.${pattern}`, 'must map a pattern to a deployment name');
      }
      entries.push({ pattern, deployment });
    }
    azureOpenai.modelMapping = { entries };
  }
  if (raw.api_versions !== undefined) {
    if (!isPlainObject(raw.api_versions)) {
      return fail('api_versions', 'must be an object');
    }
    const versions: keypool.ApiVersions = {};
    for (const [key, version] of Object.entries(raw.api_versions)) {
      if (!(API_VERSION_KEYS as readonly string[]).includes(key)) {
        return fail(`api_versions.${key}`, `is not one of ${API_VERSION_KEYS.join(', ')}`);
      }
      if (typeof version !== 'string') {
        return fail(`api_versions.${key}`, 'must be an API version string');
      }
      versions[key as (typeof API_VERSION_KEYS)[number]] = version;
    }
    azureOpenai.apiVersions = versions;
  }
  return { ok: true, config: { providerType: { $case: 'azureOpenai', value: azureOpenai } } };
}

function readVertexAi(raw: Record<string, unknown>): KeyConfigRead {
  const extra = unknownField(raw, ['provider_type', ...VERTEX_AI_FIELDS]);
  if (extra) {
    return fail(extra, 'is not a field of the cloud_b (Google Vertex AI) provider type');
  }
  const fields: Partial<Record<(typeof VERTEX_AI_FIELDS)[number], string>> = {};
  for (const field of VERTEX_AI_FIELDS) {
    const value = raw[field] ?? '';
    if (typeof value !== 'string') {
      return fail(field, 'must be a string');
    }
    fields[field] = value;
  }
  const vertexAi: keypool.VertexAiConfig = {
    baseUrl: fields.base_url ?? '',
    projectId: fields.project_id ?? '',
    clientEmail: fields.client_email ?? '',
    privateKey: fields.private_key ?? '',
  };
  return { ok: true, config: { providerType: { $case: 'vertexAi', value: vertexAi } } };
}

/** The contract → the Config object; the standard type is `{}`. */
export function keyConfigObject(config: KeyConfig): Record<string, unknown> {
  const type = config.providerType;
  switch (type?.$case) {
    case undefined:
      return {};
    case 'azureOpenai': {
      const { modelMapping, apiVersions } = type.value;
      return {
        provider_type: ProviderType.AzureOpenAi,
        ...(modelMapping && {
          model_mapping: Object.fromEntries(
            modelMapping.entries.map(({ pattern, deployment }) => [pattern, deployment]),
          ),
        }),
        ...(apiVersions && {
          api_versions: Object.fromEntries(
            API_VERSION_KEYS.flatMap((key) => {
              const version = apiVersions[key];
              return version === undefined ? [] : [[key, version]];
            }),
          ),
        }),
      };
    }
    case 'vertexAi':
      return {
        provider_type: ProviderType.VertexAi,
        base_url: type.value.baseUrl,
        project_id: type.value.projectId,
        client_email: type.value.clientEmail,
        private_key: type.value.privateKey,
      };
    case 'anthropic':
      return { provider_type: ProviderType.Anthropic };
  }
}
