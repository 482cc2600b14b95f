import {
  API_VERSION_KEYS,
  keyConfigObject,
  MAX_PATTERN_WILDCARDS,
  ProviderType,
  tooManyWildcards,
  type KeyConfig,
} from '@gw/kit';
import type { keypool } from '@gw/proto';

/**
 * The values of a provider key's `Config` (its shape, `@gw/kit` key-config, is checked where it
 * is read):
 * - `standard`: no field.
 * - Azure OpenAI (`cloud_a`): `model_mapping` (model pattern → deployment name, wildcards allowed, `*` the
 *   default; at most 1024, each pattern once and with at most 8 `*`) and optional `api_versions`.
 * - Google Vertex AI (`cloud_b`): `base_url` (http(s), same URL policy as Provider),
 *   `project_id`, `client_email`, `private_key` (PEM); SecretKey is a 51-character placeholder.
 * - `anthropic`: no field; the Provider is Anthropic's API base and SecretKey its API key.
 * `private_key` is the sensitive field: it is split off and stored encrypted.
 */
export const VERTEX_AI_SECRET_LENGTH = 51;

export interface ParsedProviderConfig {
  providerType: ProviderType;
  /** The Config object as stored and shown, without the sensitive fields. */
  visible: Record<string, unknown>;
  /** Fields stored encrypted (Vertex AI's private_key). */
  sensitive: Record<string, string>;
  /** For Vertex AI: the base_url, checked by the caller with the Provider URL policy. */
  urls: Array<{ field: string; value: string }>;
}

export type ConfigCheck =
  { ok: true; config: ParsedProviderConfig } | { ok: false; field: string; reason: string };

const PEM = /^-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----\n[A-Za-z0-9+/=\n]+\n-----END \1-----\n?$/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const NAME_VALUE = /^[\x21-\x7e]{1,256}$/;
const API_VERSION = /^[A-Za-z0-9._-]{0,64}$/;
const MAX_DEPLOYMENTS = 1024;
const MAX_PRIVATE_KEY_LENGTH = 16_384;

function fail(field: string, reason: string): ConfigCheck {
  return { ok: false, field: `Config.${field}`, reason };
}

/** A private_key as pasted: literal `\n` sequences become newlines, surrounding space goes. */
function cleanPrivateKey(value: string): string {
  return `${value.replace(/\\n/g, '\n').replace(/\r\n/g, '\n').trim()}\n`;
}

export function checkProviderConfig(config: KeyConfig): ConfigCheck {
  const type = config.providerType;
  switch (type?.$case) {
    case undefined:
      return { ok: true, config: { providerType: 'standard', visible: {}, sensitive: {}, urls: [] } };
    case 'azureOpenai':
      return checkAzureOpenAi(type.value);
    case 'vertexAi':
      return checkVertexAi(type.value);
    case 'anthropic':
      return {
        ok: true,
        config: {
          providerType: 'anthropic',
          visible: { provider_type: 'anthropic' },
          sensitive: {},
          urls: [],
        },
      };
  }
}

function checkAzureOpenAi(azureOpenai: keypool.AzureOpenAiConfig): ConfigCheck {
  const deployments = azureOpenai.modelMapping?.entries ?? [];
  if (deployments.length > MAX_DEPLOYMENTS) {
    return fail('model_mapping', `has more than ${MAX_DEPLOYMENTS} entries`);
  }
  const patterns = new Set<string>();
  for (const { pattern, deployment } of deployments) {
    if (!NAME_VALUE.test(pattern) || !NAME_VALUE.test(deployment)) {
      return fail(
        `model_mapping.${pattern}`,
        'must map a pattern to a deployment name (printable, 1-256 characters)',
      );
    }
    if (tooManyWildcards(pattern)) {
      return fail(`model_mapping.${pattern}`, `has more than ${MAX_PATTERN_WILDCARDS} "*"`);
    }
    if (patterns.has(pattern)) {
      return fail(`model_mapping.${pattern}`, 'appears more than once');
    }
    patterns.add(pattern);
  }
  for (const key of API_VERSION_KEYS) {
    const version = azureOpenai.apiVersions?.[key];
    if (version !== undefined && !API_VERSION.test(version)) {
      return fail(`api_versions.${key}`, 'must be an API version string');
    }
  }
  return {
    ok: true,
    config: {
      providerType: ProviderType.AzureOpenAi,
      visible: keyConfigObject({ providerType: { $case: 'azureOpenai', value: azureOpenai } }),
      sensitive: {},
      urls: [],
    },
  };
}

function checkVertexAi(vertexAi: keypool.VertexAiConfig): ConfigCheck {
  const baseUrl = vertexAi.baseUrl.trim();
  const clientEmail = vertexAi.clientEmail.trim();
  if (baseUrl === '') {
    return fail('base_url', 'is required (an http(s) URL)');
  }
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(vertexAi.projectId)) {
    return fail('project_id', 'is required (1-128 letters, digits, . _ : -)');
  }
  if (!EMAIL.test(clientEmail)) {
    return fail('client_email', 'is required (an e-mail address)');
  }
  if (vertexAi.privateKey === '' || vertexAi.privateKey.length > MAX_PRIVATE_KEY_LENGTH) {
    return fail('private_key', 'is required (a PEM private key)');
  }
  const pem = cleanPrivateKey(vertexAi.privateKey);
  if (!PEM.test(pem)) {
    return fail('private_key', 'must be a PEM private key');
  }
  return {
    ok: true,
    config: {
      providerType: ProviderType.VertexAi,
      visible: {
        provider_type: ProviderType.VertexAi,
        base_url: baseUrl,
        project_id: vertexAi.projectId,
        client_email: clientEmail,
      },
      sensitive: { private_key: pem },
      urls: [{ field: 'Config.base_url', value: baseUrl }],
    },
  };
}
