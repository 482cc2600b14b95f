/**
 * `Config` of a provider key, by `provider_type`:
 * - `standard` (default, may be omitted): no other field.
 * - `cloud_a`: `model_mapping` (model pattern → deployment name, wildcards allowed, `*` the
 *   default) and optional `api_versions` with keys chat, embeddings, responses, audio, images.
 * - `cloud_b`: `base_url` (http(s), same URL policy as Provider), `project_id`, `client_email`,
 *   `private_key` (PEM); SecretKey is a 51-character placeholder.
 * Unknown types and fields are refused. `private_key` is the sensitive field: it is split off
 * and stored encrypted.
 */
export const PROVIDER_TYPES = ['standard', 'cloud_a', 'cloud_b'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];
export const API_VERSION_KEYS = ['chat', 'embeddings', 'responses', 'audio', 'images'] as const;
export const CLOUD_B_SECRET_LENGTH = 51;

export interface ParsedProviderConfig {
  providerType: ProviderType;
  /** Everything that may be shown (masked of nothing). */
  visible: Record<string, unknown>;
  /** Fields stored encrypted (cloud_b private_key). */
  sensitive: Record<string, string>;
  /** For cloud_b: the base_url, checked by the caller with the Provider URL policy. */
  urls: Array<{ field: string; value: string }>;
}

export type ConfigCheck =
  { ok: true; config: ParsedProviderConfig } | { ok: false; field: string; reason: string };

const PEM = /^-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----\n[A-Za-z0-9+/=\n]+\n-----END \1-----\n?$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const NAME_VALUE = /^[\x21-\x7e]{1,256}$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

function fail(field: string, reason: string): ConfigCheck {
  return { ok: false, field: `Config.${field}`, reason };
}

function unknownField(value: Record<string, unknown>, allowed: readonly string[]): string | undefined {
  return Object.keys(value).find((key) => !allowed.includes(key));
}

/** A private_key as pasted: literal `\n` sequences become newlines, surrounding space goes. */
export function cleanPrivateKey(value: string): string {
  return `${value.replace(/\\n/g, '\n').replace(/\r\n/g, '\n').trim()}\n`;
}

export function parseProviderConfig(raw: unknown): ConfigCheck {
  if (raw === undefined || raw === null) {
    return { ok: true, config: { providerType: 'standard', visible: {}, sensitive: {}, urls: [] } };
  }
  if (!isPlainObject(raw)) {
    return { ok: false, field: 'Config', reason: 'must be an object' };
  }
  const type = raw.provider_type ?? 'standard';
  if (typeof type !== 'string' || !(PROVIDER_TYPES as readonly string[]).includes(type)) {
    return fail('provider_type', `must be one of ${PROVIDER_TYPES.join(', ')}`);
  }
  const providerType = type as ProviderType;
  switch (providerType) {
    case 'standard': {
      const extra = unknownField(raw, ['provider_type']);
      return extra
        ? fail(extra, 'is not a field of the standard provider type')
        : { ok: true, config: { providerType, visible: {}, sensitive: {}, urls: [] } };
    }
    case 'cloud_a':
      return parseCloudA(raw);
    case 'cloud_b':
      return parseCloudB(raw);
  }
}

function parseCloudA(raw: Record<string, unknown>): ConfigCheck {
  const extra = unknownField(raw, ['provider_type', 'model_mapping', 'api_versions']);
  if (extra) {
    return fail(extra, 'is not a field of the cloud_a provider type');
  }
  const visible: Record<string, unknown> = { provider_type: 'cloud_a' };
  if (raw.model_mapping !== undefined) {
    if (!isPlainObject(raw.model_mapping)) {
      return fail('model_mapping', 'must be an object of model pattern to deployment name');
    }
    const entries = Object.entries(raw.model_mapping);
    if (entries.length > 1024) {
      return fail('model_mapping', 'has more than 1024 entries');
    }
    for (const [pattern, deployment] of entries) {
      if (!NAME_VALUE.test(pattern) || typeof deployment !== 'string' || !NAME_VALUE.test(deployment)) {
        return fail(
          `model_mapping.${pattern}`,
          'must map a pattern to a deployment name (printable, 1-256 characters)',
        );
      }
    }
    visible.model_mapping = Object.fromEntries(entries);
  }
  if (raw.api_versions !== undefined) {
    if (!isPlainObject(raw.api_versions)) {
      return fail('api_versions', 'must be an object');
    }
    for (const [key, version] of Object.entries(raw.api_versions)) {
      if (!(API_VERSION_KEYS as readonly string[]).includes(key)) {
        return fail(`api_versions.${key}`, `is not one of ${API_VERSION_KEYS.join(', ')}`);
      }
      if (typeof version !== 'string' || !/^[A-Za-z0-9._-]{0,64}$/.test(version)) {
        return fail(`api_versions.${key}`, 'must be an API version string');
      }
    }
    visible.api_versions = { ...raw.api_versions };
  }
  return { ok: true, config: { providerType: 'cloud_a', visible, sensitive: {}, urls: [] } };
}

function parseCloudB(raw: Record<string, unknown>): ConfigCheck {
  const extra = unknownField(raw, ['provider_type', 'base_url', 'project_id', 'client_email', 'private_key']);
  if (extra) {
    return fail(extra, 'is not a field of the cloud_b provider type');
  }
  const {
    base_url: baseUrl,
    project_id: projectId,
    client_email: clientEmail,
    private_key: privateKey,
  } = raw;
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    return fail('base_url', 'is required (an http(s) URL)');
  }
  if (typeof projectId !== 'string' || !/^[A-Za-z0-9._:-]{1,128}$/.test(projectId)) {
    return fail('project_id', 'is required (1-128 letters, digits, . _ : -)');
  }
  if (typeof clientEmail !== 'string' || !EMAIL.test(clientEmail.trim())) {
    return fail('client_email', 'is required (an e-mail address)');
  }
  if (typeof privateKey !== 'string' || privateKey.length > 16_384) {
    return fail('private_key', 'is required (a PEM private key)');
  }
  const pem = cleanPrivateKey(privateKey);
  if (!PEM.test(pem)) {
    return fail('private_key', 'must be a PEM private key');
  }
  return {
    ok: true,
    config: {
      providerType: 'cloud_b',
      visible: {
        provider_type: 'cloud_b',
        base_url: baseUrl.trim(),
        project_id: projectId,
        client_email: clientEmail.trim(),
      },
      sensitive: { private_key: pem },
      urls: [{ field: 'Config.base_url', value: baseUrl.trim() }],
    },
  };
}
